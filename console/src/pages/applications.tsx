import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import {
  ActionButton,
  Checkbox,
  DeleteButton,
  Field,
  Form,
  Link,
  Named,
  Page,
  SearchedTable,
  SecretOnce,
  Select,
  TextArea,
  lines,
  useLoad,
  useSearchedList,
} from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import { isInstanceOwner, useMe } from '../roles';
import { Credentials } from './credentials';
import { CreateSamlApp } from './saml-app';
import { useOauthProfiles } from './oauth-profiles';
import { ProjectAccess } from './project-access';

/** An application as `GET …/apps` reads it: an OIDC or API client, or a SAML service provider with its fields. */
export type App = Schema<'AppDto'>;

/** The values UpdateAppDto accepts (src/admin/dto/projects.dto.ts). */
const RESPONSE_TYPES = ['code', 'id_token', 'id_token token'];
const TYPE_LABELS: Record<App['type'], string> = { oidc: 'OIDC', api: 'API', saml: 'SAML' };
const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:device_code',
];

type OidcAuth = App['authMethod'];

const APPS_PAGE = 50;

/**
 * One project's applications (ORG_OWNER): create OIDC and API applications (secrets shown once, redirect URIs) and
 * SAML applications (then their page, with what to hand to the service provider); the project's roles and grants.
 */
export function ProjectPage({ orgId, projectId }: { orgId: string; projectId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects/${enc(projectId)}`;
  const apps = useSearchedList(APPS_PAGE, (page) => api<Schema<'AppListDto'>>('GET', `${base}/apps${query(page)}`), [base]);
  const project = useLoad(() => api<Schema<'ProjectDto'>>('GET', base), [base]);
  const [created, setCreated] = useState<{ clientId: string; clientSecret?: string } | null>(null);
  const [kind, setKind] = useState<'none' | 'oidc' | 'api' | 'saml'>('none');
  const appHref = (appId: string) => `/console/orgs/${enc(orgId)}/projects/${enc(projectId)}/apps/${enc(appId)}`;
  const [keysOf, setKeysOf] = useState<App | null>(null);
  const done = (result: { clientId: string; clientSecret?: string }) => {
    setCreated(result);
    setKind('none');
    apps.reload();
  };
  return (
    <Page title={project.data?.name ?? t('project')}>
      <p>
        <Link href={`/console/orgs/${enc(orgId)}/projects`}>{t('backToProjects')}</Link>
      </p>
      <h2>{t('applications')}</h2>
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
        </button>{' '}
        <button type="button" onClick={() => setKind('saml')}>
          {t('newSamlApp')}
        </button>
      </p>
      {kind === 'oidc' && <CreateOidcApp base={base} onCreated={done} onCancel={() => setKind('none')} />}
      {kind === 'api' && <CreateApiApp base={base} onCreated={done} onCancel={() => setKind('none')} />}
      {kind === 'saml' && <CreateSamlApp base={base} onCreated={(appId) => navigate(appHref(appId))} onCancel={() => setKind('none')} />}
      <SearchedTable
        name={t('applications')}
        list={apps}
        items={(page) => ({ found: page.apps, total: page.total })}
        headings={[t('name'), t('type'), t('clientId'), t('actions')]}
        empty={[t('emptyApps'), t('emptyAppsNext')]}
        rows={(found) =>
          found.map((app) => <AppRow key={app.appId} base={base} href={appHref(app.appId)} app={app} onChange={apps.reload} onKeys={() => setKeysOf(app)} />)
        }
      />
      {keysOf && <AppKeys key={keysOf.appId} path={`${base}/apps/${enc(keysOf.appId)}`} app={keysOf} onClose={() => setKeysOf(null)} />}
      <ProjectAccess orgId={orgId} projectId={projectId} />
    </Page>
  );
}

/** An application's keys for private_key_jwt (RFC 7523 client authentication): the private key shown once. */
function AppKeys({ path, app, onClose }: { path: string; app: App; onClose: () => void }) {
  return (
    <>
      <Credentials
        id="app-keys"
        title={t('keysOf', { name: app.name })}
        path={`${path}/keys`}
        rows={(data) => {
          const { keys, total } = data as { keys: { keyId: string; createdAt: string; expirationDate?: string }[]; total: number };
          return { items: keys.map((k) => ({ id: k.keyId, createdAt: k.createdAt, expirationDate: k.expirationDate })), total };
        }}
        addLabel={t('addKey')}
        secretLabel={t('privateKey')}
        multiline
        add={async () => {
          const key = await api<Schema<'ApplicationKeyDto'>>('POST', `${path}/keys`, {});
          return { secret: key.keyDetails.key, download: { name: `${app.clientId}-${key.keyId}.json`, content: JSON.stringify(key.keyDetails, null, 2) } };
        }}
      />
      <button type="button" onClick={onClose}>
        {t('closeKeys')}
      </button>
    </>
  );
}

function AppRow({ base, href, app: listed, onChange, onKeys }: { base: string; href: string; app: App; onChange: () => void; onKeys: () => void }) {
  // What the last save answered, until the list's reload brings the row again: an edit opened in between shows it.
  const [saved, setSaved] = useState<App | null>(null);
  useEffect(() => setSaved(null), [listed]);
  const app = saved ?? listed;
  const path = `${base}/apps/${enc(app.appId)}`;
  const [secret, setSecret] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const hasSecret = app.authMethod === 'client_secret_basic' || app.authMethod === 'client_secret_post';
  return (
    <tr>
      <th scope="row">
        <Named name={app.name} id={app.appId} href={href} />
      </th>
      <td>{TYPE_LABELS[app.type]}</td>
      <td class="mono">{app.clientId}</td>
      <td>
        {hasSecret && (
          <ActionButton
            label={t('regenerateSecret')}
            action={async () => setSecret((await api<Schema<'AppSecretDto'>>('POST', `${path}/secret`, {})).clientSecret)}
          />
        )}
        {secret && <SecretOnce label={t('clientSecret')} value={secret} onDismiss={() => setSecret(null)} />}
        {app.authMethod === 'private_key_jwt' && (
          <button type="button" onClick={onKeys}>
            {t('keys')}
          </button>
        )}
        {app.type === 'oidc' &&
          (editing ? (
            <EditOidcApp
              path={path}
              app={app}
              onDone={({ clientSecret: newSecret, ...changed }) => {
                setEditing(false);
                setSaved(changed);
                if (newSecret) setSecret(newSecret);
                onChange();
              }}
              onCancel={() => setEditing(false)}
            />
          ) : (
            <button type="button" onClick={() => setEditing(true)}>
              {t('editApplication')}
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

/** Toggles `value` in a set of strings kept as an array (the order of `all`). */
function toggled(list: string[], value: string, on: boolean, all: string[]): string[] {
  return all.filter((v) => (v === value ? on : list.includes(v)));
}

/**
 * PATCH …/apps/{appId} with every OIDC field; the API validates it like a create. Switching to a secret
 * method makes a secret, answered once as `clientSecret`.
 */
function EditOidcApp({ path, app, onDone, onCancel }: { path: string; app: App; onDone: (changed: Schema<'AppChangedDto'>) => void; onCancel: () => void }) {
  const [redirects, setRedirects] = useState((app.redirectUris ?? []).join('\n'));
  const [logouts, setLogouts] = useState((app.postLogoutRedirectUris ?? []).join('\n'));
  const [responseTypes, setResponseTypes] = useState(app.responseTypes ?? ['code']);
  const [grantTypes, setGrantTypes] = useState(app.grantTypes ?? ['authorization_code']);
  const [authMethod, setAuthMethod] = useState<OidcAuth>((app.authMethod as OidcAuth | undefined) ?? 'client_secret_basic');
  const [tokenType, setTokenType] = useState<'opaque' | 'jwt'>(app.accessTokenType ?? 'opaque');
  const [assertion, setAssertion] = useState(Boolean(app.idTokenUserinfoAssertion));
  const [devMode, setDevMode] = useState(Boolean(app.devMode));
  const profiles = useOauthProfiles(app);
  const answer = useRef<Schema<'AppChangedDto'>>(app);
  return (
    <>
      <Form
        label={t('editApplication')}
        submit={t('save')}
        action={async () => {
          answer.current = await api<Schema<'AppChangedDto'>>('PATCH', path, {
            redirectUris: lines(redirects),
            postLogoutRedirectUris: lines(logouts),
            responseTypes,
            grantTypes,
            authMethod,
            accessTokenType: tokenType,
            idTokenUserinfoAssertion: assertion,
            devMode,
            ...profiles.values,
          });
        }}
        onDone={() => onDone(answer.current)}
      >
        <TextArea label={t('redirectUris')} value={redirects} onInput={setRedirects} />
        <TextArea label={t('postLogoutRedirectUris')} value={logouts} onInput={setLogouts} />
        <fieldset>
          <legend>{t('responseTypes')}</legend>
          {RESPONSE_TYPES.map((v) => (
            <Checkbox
              key={v}
              label={v}
              checked={responseTypes.includes(v)}
              onChange={(on) => setResponseTypes(toggled(responseTypes, v, on, RESPONSE_TYPES))}
            />
          ))}
        </fieldset>
        <fieldset>
          <legend>{t('grantTypes')}</legend>
          {GRANT_TYPES.map((v) => (
            <Checkbox key={v} label={v} checked={grantTypes.includes(v)} onChange={(on) => setGrantTypes(toggled(grantTypes, v, on, GRANT_TYPES))} />
          ))}
        </fieldset>
        <Select label={t('authMethod')} value={authMethod} onChange={setAuthMethod} options={oidcAuthOptions()} />
        <Select label={t('accessTokenType')} value={tokenType} onChange={setTokenType} options={tokenTypeOptions()} />
        <Checkbox label={t('idTokenUserinfoAssertion')} checked={assertion} onChange={setAssertion} />
        <Checkbox label={t('devMode')} checked={devMode} onChange={setDevMode} />
        {profiles.fields}
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </>
  );
}

function CreateOidcApp({
  base,
  onCreated,
  onCancel,
}: {
  base: string;
  onCreated: (r: { clientId: string; clientSecret?: string }) => void;
  onCancel: () => void;
}) {
  const me = useMe();
  const [name, setName] = useState('');
  const [redirects, setRedirects] = useState('');
  const [logouts, setLogouts] = useState('');
  const [authMethod, setAuthMethod] = useState<OidcAuth>('client_secret_basic');
  const [tokenType, setTokenType] = useState<'opaque' | 'jwt'>('opaque');
  const [refresh, setRefresh] = useState(false);
  const [devMode, setDevMode] = useState(false);
  const [apiAccess, setApiAccess] = useState(false);
  const profiles = useOauthProfiles();
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
      ...profiles.values,
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
        <Select label={t('authMethod')} value={authMethod} onChange={setAuthMethod} options={oidcAuthOptions()} />
        <Select label={t('accessTokenType')} value={tokenType} onChange={setTokenType} options={tokenTypeOptions()} />
        <Checkbox label={t('refreshTokens')} checked={refresh} onChange={setRefresh} />
        <Checkbox label={t('devMode')} checked={devMode} onChange={setDevMode} />
        {isInstanceOwner(me) && <Checkbox label={t('apiAccess')} checked={apiAccess} onChange={setApiAccess} />}
        {profiles.fields}
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}

function CreateApiApp({
  base,
  onCreated,
  onCancel,
}: {
  base: string;
  onCreated: (r: { clientId: string; clientSecret?: string }) => void;
  onCancel: () => void;
}) {
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

/** The choices of an OIDC application's client authentication, for creating and editing it (labels in the current language). */
function oidcAuthOptions(): { value: OidcAuth; label: string }[] {
  return [
    { value: 'client_secret_basic', label: 'client_secret_basic' },
    { value: 'client_secret_post', label: 'client_secret_post' },
    { value: 'none', label: t('authNone') },
    { value: 'private_key_jwt', label: 'private_key_jwt' },
  ];
}

function tokenTypeOptions(): { value: 'opaque' | 'jwt'; label: string }[] {
  return [
    { value: 'opaque', label: t('opaque') },
    { value: 'jwt', label: 'JWT' },
  ];
}
