import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { ActionButton, Checkbox, DeleteButton, Field, Form, Page, SearchedTable, Select, TextArea, useSearchedList } from '../components';
import { t } from '../i18n';

type Idp = Schema<'IdpDto'>;

const LIMIT = 50;

type AuthMethod = 'client_secret_basic' | 'client_secret_post';
/**
 * How the client authenticates at the upstream's token endpoint. `client_secret_post` is for upstreams that do not
 * decode the form-encoded Basic credentials RFC 6749 §2.3.1 requires, such as glewlwyd with a client id containing
 * `-` (docs/federation.md, "Connecting an upstream").
 */
const AUTH_METHOD_OPTIONS: { value: AuthMethod; label: string }[] = [
  { value: 'client_secret_basic', label: 'client_secret_basic' },
  { value: 'client_secret_post', label: 'client_secret_post' },
];
type Protocol = 'oidc' | 'saml';
/** A SAML IdP's metadata: read from its URL, or pasted as the document (docs/federation.md, "SAML"). */
type MetadataSource = 'url' | 'xml';

/** What the upstream needs after an IdP is added: OIDC's redirect URI, or SAML's SP metadata (entity id and ACS in it). */
type Added = Schema<'IdpCreatedDto'>;
type LinkBy = '' | 'externalId' | 'userName' | 'email';

/**
 * An organization's upstream identity providers (docs/federation.md; ORG_OWNER): add an OpenID Connect IdP (read
 * the callback URL to register at the upstream) or a SAML 2.0 IdP by its metadata URL or pasted metadata XML (read
 * this SP's metadata URL, entity id and ACS to hand to the upstream), remove one. The client secret is sent once,
 * never shown. An IdP whose host did not resolve says it could not be reached yet ("Not reached yet").
 */
export function IdpsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/idps`;
  // Searched and paged by the server (`?query=` matches the name, the issuer and the entity id).
  const idps = useSearchedList(LIMIT, (page) => api<Schema<'IdpListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [protocol, setProtocol] = useState<Protocol>('oidc');
  const [name, setName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [metadataSource, setMetadataSource] = useState<MetadataSource>('url');
  const [metadataUrl, setMetadataUrl] = useState('');
  const [metadataXml, setMetadataXml] = useState('');
  const [subjectClaim, setSubjectClaim] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [authMethod, setAuthMethod] = useState<AuthMethod>('client_secret_basic');
  const [created, setCreated] = useState<Added | null>(null);
  const rules = useAccountRules(NO_RULES);
  const create = async () => {
    const common = { name, ...rules.body() };
    const metadata = metadataSource === 'xml' ? { metadataXml } : { metadataUrl };
    const subject = subjectClaim.trim() ? { subjectClaim: subjectClaim.trim() } : {};
    const body =
      protocol === 'saml' ? { type: 'saml', ...metadata, ...common } : { type: 'oidc', issuer, clientId, clientSecret, authMethod, ...subject, ...common };
    setCreated(await api<Added>('POST', base, body));
  };
  return (
    <Page title={t('identityProviders')}>
      {created && (
        <section class="panel" role="status" aria-labelledby="callback-heading">
          <h2 id="callback-heading">{t('idpAdded')}</h2>
          {created.callbackUrl ? (
            <>
              <p>{t('registerCallback')}</p>
              <p class="mono">{created.callbackUrl}</p>
            </>
          ) : (
            <>
              <p>{t('handSpMetadata')}</p>
              <p class="mono">{created.spMetadataUrl}</p>
              <dl>
                <dt>{t('spEntityId')}</dt>
                <dd class="mono">{created.spEntityId}</dd>
                <dt>{t('acsUrl')}</dt>
                <dd class="mono">{created.acsUrl}</dd>
              </dl>
            </>
          )}
        </section>
      )}
      <Form
        label={t('addIdp')}
        submit={t('addIdp')}
        action={create}
        onDone={() => {
          for (const clear of [setName, setIssuer, setMetadataUrl, setMetadataXml, setSubjectClaim, setClientId, setClientSecret]) clear('');
          rules.reset();
          idps.reload();
        }}
      >
        <Select
          label={t('protocol')}
          value={protocol}
          onChange={setProtocol}
          options={[
            { value: 'oidc', label: 'OpenID Connect' },
            { value: 'saml', label: 'SAML 2.0' },
          ]}
        />
        <Field label={t('name')} value={name} onInput={setName} required />
        {protocol === 'saml' ? (
          <>
            <Select
              label={t('metadataSource')}
              value={metadataSource}
              onChange={setMetadataSource}
              options={[
                { value: 'url', label: t('metadataFromUrl') },
                { value: 'xml', label: t('metadataPasted') },
              ]}
            />
            {metadataSource === 'xml' ? (
              <TextArea label={t('metadataXml')} value={metadataXml} onInput={setMetadataXml} rows={8} required />
            ) : (
              <Field label={t('metadataUrl')} type="url" value={metadataUrl} onInput={setMetadataUrl} required placeholder="https://idp.example.com/metadata" />
            )}
          </>
        ) : (
          <>
            <Field label={t('issuer')} type="url" value={issuer} onInput={setIssuer} required placeholder="https://login.example.com" />
            <Field label={t('clientId')} value={clientId} onInput={setClientId} required />
            <Field label={t('clientSecret')} type="password" value={clientSecret} onInput={setClientSecret} required autoComplete="off" />
            <Select label={t('authMethod')} value={authMethod} onChange={setAuthMethod} options={AUTH_METHOD_OPTIONS} />
            <Field label={t('subjectClaim')} value={subjectClaim} onInput={setSubjectClaim} placeholder="sub" />
          </>
        )}
        {rules.fields}
      </Form>
      <SearchedTable
        name={t('identityProviders')}
        list={idps}
        items={(page) => ({ found: page.idps, total: page.total })}
        headings={[t('name'), t('issuerOrEntity'), t('domains'), t('callbackOrMetadata'), t('actions')]}
        empty={[t('noIdps'), t('noIdpsNext')]}
        rows={(found) => found.map((idp) => <IdpRow key={idp.id} idp={idp} path={`${base}/${enc(idp.id)}`} onChange={() => idps.reload()} />)}
      />
    </Page>
  );
}

/** One IdP: what to hand to the upstream, and its edit form (PATCH …/idps/{idpId}: the fields sent change). */
function IdpRow({ idp, path, onChange }: { idp: Idp; path: string; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [test, setTest] = useState<string | null>(null);
  return (
    <>
      <tr>
        <th scope="row">{idp.name}</th>
        <td>
          <span class="mono">{idp.issuer ?? idp.entityId ?? idp.metadataUrl ?? ''}</span>
          {!idp.reached && (
            <p class="muted" data-unreached>
              {t('idpNotReachedYet')}
            </p>
          )}
        </td>
        <td>{idp.domains.join(', ')}</td>
        <td class="mono">{idp.callbackUrl ?? idp.spMetadataUrl ?? ''}</td>
        <td>
          <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {t('edit')}
          </button>
          <ActionButton label={t('testSignIn')} action={async () => setTest((await api<Schema<'IdpTestDto'>>('POST', `${path}/test`)).url)} />
          <DeleteButton
            action={async () => {
              await api('DELETE', path);
              onChange();
            }}
          />
        </td>
      </tr>
      {test && (
        <tr>
          <td colSpan={5}>
            <p>{t('testSignInHint')}</p>
            {/* A new tab, opened by the operator's click: the result page there changes nothing (docs/federation.md). */}
            <a href={test} target="_blank" rel="noopener noreferrer">
              {t('openTestSignIn', { name: idp.name })}
            </a>
          </td>
        </tr>
      )}
      {editing && (
        <tr>
          <td colSpan={5}>
            <EditIdp
              idp={idp}
              path={path}
              onDone={() => {
                setEditing(false);
                onChange();
              }}
            />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * Name, home-realm domains, linking, JIT and trust in upstream MFA; the client authentication method and the subject
 * claim (OIDC; fixed by the API once identities are linked); a new client secret (OIDC) or a metadata URL to read
 * again or metadata XML (SAML) only when typed: an empty field keeps what is stored.
 */
function EditIdp({ idp, path, onDone }: { idp: Idp; path: string; onDone: () => void }) {
  const [name, setName] = useState(idp.name);
  const rules = useAccountRules({
    domains: idp.domains.join(', '),
    linkBy: (idp.link?.by ?? '') as LinkBy,
    linkFrom: idp.link?.from ?? '',
    jit: idp.jit,
    upstreamMfa: idp.mfa === 'upstream',
  });
  const [secret, setSecret] = useState('');
  const [metadataUrl, setMetadataUrl] = useState('');
  const [metadataXml, setMetadataXml] = useState('');
  const [subjectClaim, setSubjectClaim] = useState(idp.subjectClaim ?? '');
  // A client secret method can be switched here; private_key_jwt (set by the API) is left as it is.
  const secretMethod = idp.authMethod === 'client_secret_basic' || idp.authMethod === 'client_secret_post' ? idp.authMethod : undefined;
  const [authMethod, setAuthMethod] = useState<AuthMethod | undefined>(secretMethod);
  const save = () =>
    api('PATCH', path, {
      name,
      ...rules.body(),
      ...(authMethod !== secretMethod ? { authMethod } : {}),
      ...(idp.type === 'oidc' && secret ? { clientSecret: secret } : {}),
      ...(idp.type === 'oidc' && subjectClaim.trim() && subjectClaim.trim() !== idp.subjectClaim ? { subjectClaim: subjectClaim.trim() } : {}),
      ...(idp.type === 'saml' && metadataUrl ? { metadataUrl } : {}),
      ...(idp.type === 'saml' && !metadataUrl && metadataXml.trim() ? { metadataXml } : {}),
    });
  return (
    <Form label={t('editIdp', { name: idp.name })} submit={t('save')} action={save} onDone={onDone}>
      <Field label={t('name')} value={name} onInput={setName} required />
      {rules.fields}
      {idp.type === 'oidc' ? (
        <>
          {authMethod && <Select label={t('authMethod')} value={authMethod} onChange={setAuthMethod} options={AUTH_METHOD_OPTIONS} />}
          <Field label={t('newClientSecret')} type="password" value={secret} onInput={setSecret} autoComplete="off" />
          <Field label={t('subjectClaim')} value={subjectClaim} onInput={setSubjectClaim} placeholder="sub" />
        </>
      ) : (
        <>
          <Field label={t('readMetadataAgain')} type="url" value={metadataUrl} onInput={setMetadataUrl} />
          <TextArea label={t('pasteMetadataAgain')} value={metadataXml} onInput={setMetadataXml} rows={4} />
        </>
      )}
    </Form>
  );
}

/** How an IdP finds its users (docs/federation.md, "Who the upstream identity is"): home-realm domains, the link rule, JIT, trust in upstream MFA. */
interface AccountRules {
  domains: string;
  linkBy: LinkBy;
  linkFrom: string;
  jit: boolean;
  upstreamMfa: boolean;
}

const NO_RULES: AccountRules = { domains: '', linkBy: '', linkFrom: '', jit: false, upstreamMfa: false };

/** The fields of the rules, shared by the add and the edit form, and the API body they make. */
function useAccountRules(initial: AccountRules) {
  const [rules, setRules] = useState(initial);
  const set =
    <K extends keyof AccountRules>(key: K) =>
    (value: AccountRules[K]) =>
      setRules((r) => ({ ...r, [key]: value }));
  const fields = (
    <>
      <Field label={t('domainsOptional')} value={rules.domains} onInput={set('domains')} />
      <Select
        label={t('linkBy')}
        value={rules.linkBy}
        onChange={set('linkBy')}
        options={[
          { value: '', label: t('linkNone') },
          { value: 'externalId', label: 'externalId' },
          { value: 'userName', label: 'userName' },
          { value: 'email', label: 'email' },
        ]}
      />
      {rules.linkBy && <Field label={t('linkFrom')} value={rules.linkFrom} onInput={set('linkFrom')} required hint={t('linkFromHint', { by: rules.linkBy })} />}
      <Checkbox label={t('jit')} checked={rules.jit} onChange={set('jit')} />
      <Checkbox label={t('upstreamMfa')} checked={rules.upstreamMfa} onChange={set('upstreamMfa')} />
    </>
  );
  const body = () => ({
    domains: rules.domains
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean),
    link: rules.linkBy ? { by: rules.linkBy, from: rules.linkFrom.trim() } : null,
    jit: rules.jit,
    mfa: rules.upstreamMfa ? 'upstream' : 'local',
  });
  return { fields, body, reset: () => setRules(initial) };
}
