import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import { Checkbox, DeleteButton, Field, Form, Loading, Page, Select, useLoad } from '../components';
import { t } from '../i18n';

interface Idp {
  id: string;
  name: string;
  issuer?: string;
  clientId?: string;
  domains: string[];
  link: { by: string; from: string } | null;
  jit: boolean;
  mfa: string;
  callbackUrl?: string;
}

type AuthMethod = 'client_secret_basic' | 'client_secret_post';
type LinkBy = '' | 'externalId' | 'userName' | 'email';

/**
 * An organization's upstream identity providers (docs/federation.md; ORG_OWNER): add an OpenID Connect IdP,
 * read the callback URL to register at the upstream, remove one. The client secret is sent once, never shown.
 */
export function IdpsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/idps`;
  const idps = useLoad(() => api<{ idps: Idp[] }>('GET', base), [base]);
  const [name, setName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [authMethod, setAuthMethod] = useState<AuthMethod>('client_secret_basic');
  const [domains, setDomains] = useState('');
  const [linkBy, setLinkBy] = useState<LinkBy>('');
  const [linkFrom, setLinkFrom] = useState('');
  const [jit, setJit] = useState(false);
  const [upstreamMfa, setUpstreamMfa] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const create = async () => {
    const body = {
      type: 'oidc',
      name,
      issuer,
      clientId,
      clientSecret,
      authMethod,
      domains: domains.split(',').map((d) => d.trim()).filter(Boolean),
      link: linkBy ? { by: linkBy, from: linkFrom.trim() } : null,
      jit,
      mfa: upstreamMfa ? 'upstream' : 'local',
    };
    setCreated((await api<{ id: string; callbackUrl: string }>('POST', base, body)).callbackUrl);
  };
  return (
    <Page title={t('identityProviders')}>
      {created && (
        <section class="panel" role="status" aria-labelledby="callback-heading">
          <h2 id="callback-heading">{t('idpAdded')}</h2>
          <p>{t('registerCallback')}</p>
          <p class="mono">{created}</p>
        </section>
      )}
      <Form
        label={t('addIdp')}
        submit={t('addIdp')}
        action={create}
        onDone={() => {
          for (const clear of [setName, setIssuer, setClientId, setClientSecret, setDomains, setLinkFrom]) clear('');
          idps.reload();
        }}
      >
        <Field label={t('name')} value={name} onInput={setName} required />
        <Field label={t('issuer')} type="url" value={issuer} onInput={setIssuer} required placeholder="https://login.example.com" />
        <Field label={t('clientId')} value={clientId} onInput={setClientId} required />
        <Field label={t('clientSecret')} type="password" value={clientSecret} onInput={setClientSecret} required autoComplete="off" />
        <Select
          label={t('authMethod')}
          value={authMethod}
          onChange={setAuthMethod}
          options={[
            { value: 'client_secret_basic', label: 'client_secret_basic' },
            { value: 'client_secret_post', label: 'client_secret_post' },
          ]}
        />
        <Field label={t('domainsOptional')} value={domains} onInput={setDomains} />
        <Select
          label={t('linkBy')}
          value={linkBy}
          onChange={setLinkBy}
          options={[
            { value: '', label: t('linkNone') },
            { value: 'externalId', label: 'externalId' },
            { value: 'userName', label: 'userName' },
            { value: 'email', label: 'email' },
          ]}
        />
        {linkBy && <Field label={t('linkFrom')} value={linkFrom} onInput={setLinkFrom} required />}
        <Checkbox label={t('jit')} checked={jit} onChange={setJit} />
        <Checkbox label={t('upstreamMfa')} checked={upstreamMfa} onChange={setUpstreamMfa} />
      </Form>
      <Loading loaded={idps}>
        {({ idps: list }) =>
          list.length === 0 ? (
            <p>{t('noIdps')}</p>
          ) : (
            <table>
              <caption>{t('identityProviders')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('issuer')}</th>
                  <th scope="col">{t('domains')}</th>
                  <th scope="col">{t('callbackUrl')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((idp) => (
                  <tr key={idp.id}>
                    <th scope="row">{idp.name}</th>
                    <td class="mono">{idp.issuer ?? ''}</td>
                    <td>{idp.domains.join(', ')}</td>
                    <td class="mono">{idp.callbackUrl ?? ''}</td>
                    <td>
                      <DeleteButton
                        action={async () => {
                          await api('DELETE', `${base}/${enc(idp.id)}`);
                          idps.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loading>
    </Page>
  );
}
