import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Schema } from '../api';
import { Field, Form, Notice, Select } from '../components';
import { t } from '../i18n';
import type { App } from './applications';

type Access = Schema<'AppDto'>['access'];

/**
 * Who may enter an OIDC or SAML application, and its link on its people's page of applications
 * (docs/application-access.md): the access switch and `homeUrl`, changed by PATCH on the application.
 */
export function AppAccessPanel({ path, app, onChange }: { path: string; app: App; onChange: () => void }) {
  const [access, setAccess] = useState<NonNullable<Access>>(app.access ?? 'everyone');
  const [homeUrl, setHomeUrl] = useState(app.homeUrl ?? '');
  const [saved, setSaved] = useState(false);
  const choices = [
    { value: 'everyone', label: t('accessEveryone') },
    { value: 'granted', label: t('accessGranted') },
  ] satisfies { value: NonNullable<Access>; label: string }[];
  return (
    <section class="panel" aria-labelledby="access-heading">
      <h2 id="access-heading">{t('whoMayEnter')}</h2>
      <Notice text={saved ? t('saved') : null} />
      <Form
        label={t('whoMayEnter')}
        submit={t('save')}
        action={() => (setSaved(false), api('PATCH', path, { access, homeUrl: homeUrl.trim() || null }))}
        onDone={() => {
          setSaved(true);
          onChange();
        }}
      >
        <Select label={t('access')} value={access} onChange={setAccess} options={choices} />
        <Field label={t('homeUrl')} value={homeUrl} onInput={setHomeUrl} type="url" placeholder="https://app.example.com/" />
      </Form>
    </section>
  );
}
