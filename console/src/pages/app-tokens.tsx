import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, Notice } from '../components';
import { t } from '../i18n';
import type { MessageKey } from '../i18n';
import type { App } from './applications';

const FIELDS: { field: 'accessTokenSeconds' | 'idTokenSeconds' | 'refreshIdleSeconds' | 'refreshAbsoluteSeconds'; label: MessageKey }[] = [
  { field: 'accessTokenSeconds', label: 'accessTokenSeconds' },
  { field: 'idTokenSeconds', label: 'idTokenSeconds' },
  { field: 'refreshIdleSeconds', label: 'refreshIdleSeconds' },
  { field: 'refreshAbsoluteSeconds', label: 'refreshAbsoluteSeconds' },
];

/**
 * An application's own token lifetimes (PATCH …/apps/{appId} `tokens`, docs/operations.md, "Settings"): an empty
 * field is the instance's lifetime, sent as null.
 */
export function AppTokensPanel({ path, app, onChange }: { path: string; app: App; onChange: () => void }) {
  const own = (app.tokens ?? {}) as Record<string, number | null | undefined>;
  const [values, setValues] = useState(() => Object.fromEntries(FIELDS.map(({ field }) => [field, own[field] == null ? '' : String(own[field])])));
  const [saved, setSaved] = useState(false);
  const tokens = () => Object.fromEntries(FIELDS.map(({ field }) => [field, values[field] ? Number(values[field]) : null]));
  return (
    <section class="panel" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{t('appTokenLifetimes')}</h2>
      <Form
        label={t('appTokenLifetimes')}
        submit={t('save')}
        action={() => api('PATCH', path, { tokens: tokens() })}
        onDone={() => {
          setSaved(true);
          onChange();
        }}
      >
        {FIELDS.map(({ field, label }) => (
          <Field key={field} label={t(label)} value={values[field] ?? ''} onInput={(value) => setValues({ ...values, [field]: value })} />
        ))}
        <Notice text={saved ? t('saved') : null} />
      </Form>
    </section>
  );
}
