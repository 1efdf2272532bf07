import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, enc } from '../api';
import type { Schema } from '../api';
import { Checkbox, DeleteButton, ErrorMessage, Field, Form, Loading, Notice, Page, Select, useLoad } from '../components';
import { t } from '../i18n';
import type { MessageKey } from '../i18n';

type Branding = Schema<'BrandingDto'>;
type Palette = Record<ColorKey, string>;
type ColorKey = (typeof COLOR_KEYS)[number];
type PreviewPage = 'login' | 'register' | 'second-factor' | 'error';

const COLOR_KEYS = ['primary', 'onPrimary', 'background', 'surface', 'text', 'link'] as const;
const COLOR_LABELS: Record<ColorKey, MessageKey> = {
  primary: 'brandPrimary',
  onPrimary: 'brandOnPrimary',
  background: 'brandBackground',
  surface: 'brandSurface',
  text: 'brandText',
  link: 'brandLink',
};
/** The design system's colours (docs/design.md): where a brand's palette starts. */
const DEFAULTS: Record<'light' | 'dark', Palette> = {
  light: { primary: '#1d4ed8', onPrimary: '#ffffff', background: '#f4f5f7', surface: '#ffffff', text: '#171a1f', link: '#1d4ed8' },
  dark: { primary: '#8fb2ff', onPrimary: '#0b1220', background: '#0e1014', surface: '#171a20', text: '#e8eaee', link: '#9dbcff' },
};
const LINK_KEYS = ['privacy', 'terms', 'support'] as const;
/** How long typing pauses before the preview follows (one draft per pause, not per key). */
const PREVIEW_DELAY_MS = 400;

/**
 * An organization's brand (ORG_OWNER; docs/branding.md): name, logo, colours light and dark, font and links, with a
 * live preview of its sign-in pages — each pause in editing sends the draft to `POST …/branding/preview`, which checks
 * it as a save would (a failing contrast is named here) and answers a link the frame shows; nothing is applied until
 * "Save".
 */
export function BrandingPage({ orgId }: { orgId: string }) {
  const path = `/management/v1/orgs/${enc(orgId)}/branding`;
  const [version, setVersion] = useState(0);
  const current = useLoad(
    () => api<Branding>('GET', path).catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? ({} as Branding) : Promise.reject(e))),
    [path, version],
  );
  return (
    <Page title={t('branding')}>
      <p class="hint">{t('brandingIntro')}</p>
      <Loading loaded={current}>{(brand) => <BrandingEditor key={version} path={path} saved={brand} onRemoved={() => setVersion(version + 1)} />}</Loading>
    </Page>
  );
}

function BrandingEditor({ path, saved, onRemoved }: { path: string; saved: Branding; onRemoved: () => void }) {
  const [displayName, setDisplayName] = useState(saved.displayName ?? '');
  const [ownColors, setOwnColors] = useState(Boolean(saved.colors));
  const [colors, setColors] = useState<Palette>({ ...DEFAULTS.light, ...(saved.colors as Partial<Palette> | undefined) });
  const [ownDark, setOwnDark] = useState(Boolean(saved.dark));
  const [dark, setDark] = useState<Palette>({ ...DEFAULTS.dark, ...(saved.dark as Partial<Palette> | undefined) });
  const [font, setFont] = useState<string>(saved.font ?? 'system');
  const [links, setLinks] = useState<Record<string, string>>({ ...(saved.links as Record<string, string> | undefined) });
  const [logo, setLogo] = useState<string | undefined>(saved.logo);
  const [page, setPage] = useState<PreviewPage>('login');
  const [preview, setPreview] = useState<{ url?: string; error?: unknown }>({});
  const [savedNotice, setSavedNotice] = useState(false);

  const draft = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {};
    if (displayName.trim()) body.displayName = displayName.trim();
    if (ownColors) body.colors = colors;
    if (ownDark) body.dark = dark;
    if (font !== 'system') body.font = font;
    const set = Object.fromEntries(Object.entries(links).filter(([, v]) => v.trim()));
    if (Object.keys(set).length) body.links = set;
    if (logo) body.logo = logo;
    // What this form does not edit is kept as saved.
    if (saved.icon) body.icon = saved.icon;
    if (saved.texts) body.texts = saved.texts;
    if (saved.defaultLanguage) body.defaultLanguage = saved.defaultLanguage;
    return body;
  };
  const key = JSON.stringify(draft());

  useEffect(() => {
    setSavedNotice(false);
    const timer = setTimeout(() => {
      api<{ previewUrl: string }>('POST', `${path}/preview`, JSON.parse(key)).then(
        (res) => setPreview({ url: new URL(res.previewUrl).pathname }),
        (error: unknown) => setPreview((before) => ({ url: before.url, error })),
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [key]);

  const readLogo = (file: File | undefined) => {
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => setLogo(String(reader.result));
    reader.readAsDataURL(file);
  };

  return (
    <div class="branding">
      <Form label={t('branding')} submit={t('save')} action={() => api('PUT', path, JSON.parse(key))} onDone={() => setSavedNotice(true)}>
        <Field label={t('brandDisplayName')} value={displayName} onInput={setDisplayName} />
        <label class="field">
          <span>{t('brandLogo')}</span>
          <input type="file" accept="image/png,image/webp" onChange={(e) => readLogo((e.currentTarget as HTMLInputElement).files?.[0])} />
        </label>
        {logo && (
          <p>
            <img class="brand-logo-preview" src={logo} alt={t('brandLogoCurrent')} />{' '}
            <button type="button" onClick={() => setLogo(undefined)}>
              {t('brandLogoRemove')}
            </button>
          </p>
        )}
        <Checkbox label={t('brandOwnColors')} checked={ownColors} onChange={setOwnColors} />
        {ownColors && <Colors legend={t('brandLightColors')} palette={colors} onChange={setColors} />}
        <Checkbox label={t('brandOwnDark')} checked={ownDark} onChange={setOwnDark} />
        {ownDark && <Colors legend={t('brandDarkColors')} palette={dark} onChange={setDark} />}
        <Select
          label={t('brandFont')}
          value={font}
          options={[
            { value: 'system', label: t('brandFontSystem') },
            { value: 'serif', label: t('brandFontSerif') },
            { value: 'mono', label: t('brandFontMono') },
          ]}
          onChange={setFont}
        />
        {LINK_KEYS.map((k) => (
          <Field key={k} type="url" label={t(`brandLink_${k}` as MessageKey)} value={links[k] ?? ''} onInput={(v) => setLinks({ ...links, [k]: v })} />
        ))}
        <Notice text={savedNotice ? t('saved') : null} />
      </Form>
      {saved.displayName !== undefined || saved.colors || saved.logo || saved.links || saved.font || saved.dark || saved.texts ? (
        <DeleteButton label={t('brandRemove')} confirm={t('brandRemoveConfirm')} action={() => api('DELETE', path).then(onRemoved)} />
      ) : null}
      <section class="brand-preview" aria-label={t('brandPreview')}>
        <h2>{t('brandPreview')}</h2>
        <Select
          label={t('brandPreviewPage')}
          value={page}
          options={[
            { value: 'login', label: t('brandPageLogin') },
            { value: 'register', label: t('brandPageRegister') },
            { value: 'second-factor', label: t('brandPageSecondFactor') },
            { value: 'error', label: t('brandPageError') },
          ]}
          onChange={setPage}
        />
        <ErrorMessage error={preview.error} />
        {preview.url && <iframe class="brand-preview-frame" title={t('brandPreviewFrame')} src={`${preview.url}?page=${page}`} data-brand-preview-frame />}
      </section>
    </div>
  );
}

function Colors({ legend, palette, onChange }: { legend: string; palette: Palette; onChange: (palette: Palette) => void }) {
  return (
    <fieldset class="brand-colors">
      <legend>{legend}</legend>
      {COLOR_KEYS.map((k) => (
        <label key={k} class="field brand-color">
          <span>{t(COLOR_LABELS[k])}</span>
          <input type="color" value={palette[k]} onInput={(e) => onChange({ ...palette, [k]: (e.currentTarget as HTMLInputElement).value })} />
        </label>
      ))}
    </fieldset>
  );
}
