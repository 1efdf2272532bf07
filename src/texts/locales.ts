/**
 * The languages every page a person sees and every mail are written in (docs/languages.md). A tag here is what
 * `<html lang>` carries; a request asks with any BCP 47 tag (RFC 5646) and gets the closest of these.
 */
export const LOCALES = ['en', 'de', 'fr', 'es', 'it', 'pt-BR', 'nl', 'pl', 'ja', 'zh-CN', 'ar', 'he'] as const;

export type Locale = (typeof LOCALES)[number];

/** Each language in its own words, for the account page's choice. */
export const LANGUAGE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  'pt-BR': 'Português (Brasil)',
  nl: 'Nederlands',
  pl: 'Polski',
  ja: '日本語',
  'zh-CN': '简体中文',
  ar: 'العربية',
  he: 'עברית',
};

const RIGHT_TO_LEFT = new Set<Locale>(['ar', 'he']);

/** The `dir` of a page in this language (HTML §3.2.6.4): Arabic and Hebrew are written right to left. */
export function textDirection(locale: Locale): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr';
}

/**
 * The supported language a tag asks for, or undefined: the exact tag first (`pt-BR`), then its language with the
 * region or script we write it in (`pt`, `pt-PT` → `pt-BR`; `zh`, `zh-Hans`, `zh-SG` → `zh-CN`). Traditional Chinese
 * (`zh-Hant`, `zh-TW`, `zh-HK`) is not Simplified Chinese and finds nothing, so the next choice applies.
 */
export function supportedLocale(tag: string | null | undefined): Locale | undefined {
  const parts = (tag ?? '').trim().replace(/_/g, '-').toLowerCase().split('-');
  const language = parts[0];
  if (!language) return undefined;
  if (language === 'zh') return parts.some((p) => p === 'hant' || p === 'tw' || p === 'hk' || p === 'mo') ? undefined : 'zh-CN';
  if (language === 'iw') return 'he';
  return BY_LANGUAGE.get(language);
}

/** Each supported language by its primary subtag (`pt` → `pt-BR`). */
const BY_LANGUAGE = new Map<string, Locale>(LOCALES.map((l) => [l.toLowerCase().split('-')[0], l]));

/**
 * The language of a page (docs/languages.md, "Which language"): the first supported tag of `ui_locales`
 * (OIDC Core §3.1.2.1), then the person's preferred language once they are known, then Accept-Language (RFC 9110
 * §12.5.4, by q-value), then the organization's default, else English.
 */
export function chooseLocale(
  uiLocales: string | undefined,
  acceptLanguage: string | undefined,
  known: { preferredLanguage?: string | null; organizationDefault?: string | null } = {},
): Locale {
  const fromUi = (uiLocales ?? '').split(' ').map(supportedLocale).find(Boolean);
  if (fromUi) return fromUi;
  const preferred = supportedLocale(known.preferredLanguage);
  if (preferred) return preferred;
  return fromAcceptLanguage(acceptLanguage ?? '') ?? supportedLocale(known.organizationDefault) ?? 'en';
}

/** Browsers send a handful of distinct headers: each is ranked once (at most 256 kept, as a client chooses them). */
const ranked = new Map<string, Locale | null>();

/** The first supported language of an Accept-Language header by q-value (RFC 9110 §12.5.4). */
function fromAcceptLanguage(header: string): Locale | undefined {
  const known = ranked.get(header);
  if (known !== undefined) return known ?? undefined;
  const found =
    header
      .split(',')
      .map((part) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        return { tag, q: q ? Number(q.slice(2)) : 1 };
      })
      .filter((x) => x.q > 0)
      .sort((a, b) => b.q - a.q)
      .map((x) => supportedLocale(x.tag))
      .find(Boolean) ?? null;
  if (ranked.size >= 256) ranked.clear();
  if (header.length <= 256) ranked.set(header, found);
  return found ?? undefined;
}
