import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import { ActionButton, Checkbox, DeleteButton, Field, Form, Link, Loading, Page, SecretOnce, Select, TextArea, lines, useLoad } from '../components';
import { t } from '../i18n';
import { isInstanceOwner, useMe } from '../roles';

interface App {
  appId: string;
  clientId: string;
  name: string;
  type: 'oidc' | 'api';
  authMethod?: string;
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
}

type OidcAuth = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** One project's applications (ORG_OWNER): create OIDC and API applications, secrets shown once, redirect URIs. */
export function ProjectPage({ orgId, projectId }: { orgId: string; projectId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects/${enc(projectId)}`;
  const apps = useLoad(() => api<{ apps: App[] }>('GET', `${base}/apps`), [base]);
  const [created, setCreated] = useState<{ clientId: string; clientSecret?: string } | null>(null);
  const [kind, setKind] = useState<'none' | 'oidc' | 'api'>('none');
  const done = (result: { clientId: string; clientSecret?: string }) => {
    setCreated(result);
    setKind('none');
    apps.reload();
  };
  return (
    <Page title={t('applications')}>
      <p>
        <Link href={`/console/orgs/${enc(orgId)}/projects`}>{t('backToProjects')}</Link>
      </p>
      {created && (
        <section class="panel" aria-labelledby="created-heading">
          <h2 id="created-heading">{t('applicationCreated')}</h2>
          <p>
            {t('clientId')}: <span class="mono">{created.clientId}</span>
          </p>
          {created.clientSecret ? <SecretOnce label={t('clientSecret')} value={created.clientSecret} onDismiss={() => setCreated(null)} /> : null}
        </section>
      )}
      <p>
        <button type="button" onClick={() => setKind('oidc')}>
          {t('newOidcApp')}
        </button>{' '}
        <button type="button" onClick={() => setKind('api')}>
          {t('newApiApp')}
        </button>
      </p>
      {kind === 'oidc' && <CreateOidcApp base={base} onCreated={done} onCancel={() => setKind('none')} />}
      {kind === 'api' && <CreateApiApp base={base} onCreated={done} onCancel={() => setKind('none')} />}
      <Loading loaded={apps}>
        {({ apps: list }) => (
          <table>
            <caption>{t('applications')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('name')}</th>
                <th scope="col">{t('type')}</th>
                <th scope="col">{t('clientId')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((app) => (
                <AppRow key={app.appId} base={base} app={app} onChange={apps.reload} />
              ))}
            </tbody>
          </table>
        )}
      </Loading>
    </Page>
  );
}

function AppRow({ base, app, onChange }: { base: string; app: App; onChange: () => void }) {
  const path = `${base}/apps/${enc(app.appId)}`;
  const [secret, setSecret] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [redirects, setRedirects] = useState((app.redirectUris ?? []).join('\n'));
  const [logouts, setLogouts] = useState((app.postLogoutRedirectUris ?? []).join('\n'));
  const hasSecret = app.authMethod === 'client_secret_basic' || app.authMethod === 'client_secret_post';
  return (
    <tr>
      <th scope="row">{app.name}</th>
      <td>{app.type === 'api' ? 'API' : 'OIDC'}</td>
      <td class="mono">{app.clientId}</td>
      <td>
        {hasSecret && <ActionButton label={t('regenerateSecret')} action={async () => setSecret((await api<{ clientSecret: string }>('POST', `${path}/secret`, {})).clientSecret)} />}
        {secret && <SecretOnce label={t('clientSecret')} value={secret} onDismiss={() => setSecret(null)} />}
        {app.type === 'oidc' &&
          (editing ? (
            <Form
              label={t('editRedirectUris')}
              submit={t('save')}
              action={() => api('PATCH', path, { redirectUris: lines(redirects), postLogoutRedirectUris: lines(logouts) })}
              onDone={() => {
                setEditing(false);
                onChange();
              }}
            >
              <TextArea label={t('redirectUris')} value={redirects} onInput={setRedirects} />
              <TextArea label={t('postLogoutRedirectUris')} value={logouts} onInput={setLogouts} />
            </Form>
          ) : (
            <button type="button" onClick={() => setEditing(true)}>
              {t('editRedirectUris')}
            </button>
          ))}
        <DeleteButton
          action={async () => {
            await api('DELETE', path);
            onChange();
          }}
        />
      </td>
    </tr>
  );
}

function CreateOidcApp({ base, onCreated, onCancel }: { base: string; onCreated: (r: { clientId: string; clientSecret?: string }) => void; onCancel: () => void }) {
  const me = useMe();
  const [name, setName] = useState('');
  const [redirects, setRedirects] = useState('');
  const [logouts, setLogouts] = useState('');
  const [authMethod, setAuthMethod] = useState<OidcAuth>('client_secret_basic');
  const [tokenType, setTokenType] = useState<'opaque' | 'jwt'>('opaque');
  const [refresh, setRefresh] = useState(false);
  const [devMode, setDevMode] = useState(false);
  const [apiAccess, setApiAccess] = useState(false);
  const create = async () => {
    const body = {
      name,
      redirectUris: lines(redirects),
      postLogoutRedirectUris: lines(logouts),
      responseTypes: ['code'],
      grantTypes: refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
      authMethod,
      accessTokenType: tokenType,
      devMode,
      ...(apiAccess ? { apiAccess } : {}),
    };
    onCreated(await api('POST', `${base}/apps/oidc`, body));
  };
  return (
    <section class="panel">
      <h2>{t('newOidcApp')}</h2>
      <Form label={t('newOidcApp')} submit={t('createApplication')} action={create}>
        <Field label={t('name')} value={name} onInput={setName} required />
        <TextArea label={t('redirectUris')} value={redirects} onInput={setRedirects} />
        <TextArea label={t('postLogoutRedirectUris')} value={logouts} onInput={setLogouts} />
        <Select
          label={t('authMethod')}
          value={authMethod}
          onChange={setAuthMethod}
          options={[
            { value: 'client_secret_basic', label: 'client_secret_basic' },
            { value: 'client_secret_post', label: 'client_secret_post' },
            { value: 'none', label: t('authNone') },
            { value: 'private_key_jwt', label: 'private_key_jwt' },
          ]}
        />
        <Select
          label={t('accessTokenType')}
          value={tokenType}
          onChange={setTokenType}
          options={[
            { value: 'opaque', label: t('opaque') },
            { value: 'jwt', label: 'JWT' },
          ]}
        />
        <Checkbox label={t('refreshTokens')} checked={refresh} onChange={setRefresh} />
        <Checkbox label={t('devMode')} checked={devMode} onChange={setDevMode} />
        {isInstanceOwner(me) && <Checkbox label={t('apiAccess')} checked={apiAccess} onChange={setApiAccess} />}
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}

function CreateApiApp({ base, onCreated, onCancel }: { base: string; onCreated: (r: { clientId: string; clientSecret?: string }) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [authMethod, setAuthMethod] = useState<'client_secret_basic' | 'private_key_jwt'>('client_secret_basic');
  return (
    <section class="panel">
      <h2>{t('newApiApp')}</h2>
      <Form label={t('newApiApp')} submit={t('createApplication')} action={async () => onCreated(await api('POST', `${base}/apps/api`, { name, authMethod }))}>
        <Field label={t('name')} value={name} onInput={setName} required />
        <Select
          label={t('authMethod')}
          value={authMethod}
          onChange={setAuthMethod}
          options={[
            { value: 'client_secret_basic', label: 'client_secret_basic' },
            { value: 'private_key_jwt', label: 'private_key_jwt' },
          ]}
        />
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}
