import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Schema } from '../api';
import { Checkbox, Field, Form, Loading, Notice, Page, useLoad } from '../components';
import { t } from '../i18n';
import type { MessageKey } from '../i18n';

type Settings = Schema<'SettingsDto'>;

/** The numbers of the settings, each with its label; all in one form (docs/operations.md, "Settings"). */
const NUMBERS: { section: 'tokens' | 'passwordPolicy' | 'lockout'; field: string; label: MessageKey }[] = [
  { section: 'tokens', field: 'accessTokenSeconds', label: 'accessTokenSeconds' },
  { section: 'tokens', field: 'idTokenSeconds', label: 'idTokenSeconds' },
  { section: 'tokens', field: 'refreshIdleSeconds', label: 'refreshIdleSeconds' },
  { section: 'tokens', field: 'refreshAbsoluteSeconds', label: 'refreshAbsoluteSeconds' },
  { section: 'passwordPolicy', field: 'minLength', label: 'passwordMinLength' },
  { section: 'passwordPolicy', field: 'maxLength', label: 'passwordMaxLength' },
  { section: 'passwordPolicy', field: 'historyCount', label: 'passwordHistoryCount' },
  { section: 'passwordPolicy', field: 'maxAgeDays', label: 'passwordMaxAgeDays' },
  { section: 'lockout', field: 'maxPasswordFailures', label: 'maxPasswordFailures' },
  { section: 'lockout', field: 'maxFactorFailures', label: 'maxFactorFailures' },
  { section: 'lockout', field: 'lockSeconds', label: 'lockSeconds' },
];

const FLAGS: { field: 'requireLower' | 'requireUpper' | 'requireDigit' | 'requireSymbol'; label: MessageKey }[] = [
  { field: 'requireLower', label: 'requireLower' },
  { field: 'requireUpper', label: 'requireUpper' },
  { field: 'requireDigit', label: 'requireDigit' },
  { field: 'requireSymbol', label: 'requireSymbol' },
];

/** The instance's settings (IAM_OWNER): GET/PATCH /admin/v1/settings. */
export function SettingsPage() {
  const settings = useLoad(() => api<Settings>('GET', '/admin/v1/settings'), []);
  return (
    <Page title={t('settings')}>
      <Loading loaded={settings}>{(current) => <SettingsForm current={current} />}</Loading>
    </Page>
  );
}

function SettingsForm({ current }: { current: Settings }) {
  const [numbers, setNumbers] = useState(() =>
    Object.fromEntries(NUMBERS.map(({ section, field }) => [`${section}.${field}`, String((current[section] as Record<string, number>)[field])])),
  );
  const [flags, setFlags] = useState(() => Object.fromEntries(FLAGS.map(({ field }) => [field, current.passwordPolicy[field]])));
  const [registration, setRegistration] = useState(current.registration.defaultForNewOrganizations);
  const [saved, setSaved] = useState(false);
  const body = () => {
    const sections: Record<string, Record<string, number | boolean>> = { tokens: {}, passwordPolicy: { ...flags }, lockout: {} };
    for (const { section, field } of NUMBERS) sections[section]![field] = Number(numbers[`${section}.${field}`]);
    return { ...sections, registration: { defaultForNewOrganizations: registration } };
  };
  return (
    <Form label={t('settings')} submit={t('save')} action={() => api('PATCH', '/admin/v1/settings', body())} onDone={() => setSaved(true)}>
      {NUMBERS.map(({ section, field, label }) => (
        <Field
          key={`${section}.${field}`}
          label={t(label)}
          value={numbers[`${section}.${field}`] ?? ''}
          onInput={(value) => setNumbers({ ...numbers, [`${section}.${field}`]: value })}
        />
      ))}
      {FLAGS.map(({ field, label }) => (
        <Checkbox key={field} label={t(label)} checked={Boolean(flags[field])} onChange={(checked) => setFlags({ ...flags, [field]: checked })} />
      ))}
      <Checkbox label={t('registrationForNewOrganizations')} checked={registration} onChange={setRegistration} />
      <Notice text={saved ? t('saved') : null} />
    </Form>
  );
}
