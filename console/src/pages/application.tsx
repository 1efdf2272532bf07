import { api, enc } from '../api';
import { discoveryUrlOf, signedInIssuer } from '../auth';
import { useState } from 'preact/hooks';
import { CopyField, Link, Loading, Notice, Page, useLoad } from '../components';
import { t } from '../i18n';
import { AppAccessPanel } from './app-access';
import { AppTokensPanel } from './app-tokens';
import type { App } from './applications';
import { EditSamlApp, IdpCertificatePanel, SamlSettings } from './saml-app';

/**
 * One application (GET …/apps/{appId}): what its developers need to configure a client library — the issuer,
 * the discovery URL, the client id and the redirect URIs; for a SAML application what its service provider is told
 * (the IdP's entity id, SSO and metadata URLs, the signing certificate from the organization's metadata) and what it
 * registered — each with a copy button — and its settings, with their edit form. The issuer is the one the console
 * signed in with (discovery checked it at sign-in), so nothing is fetched to show it.
 */
export function ApplicationPage({ orgId, projectId, appId }: { orgId: string; projectId: string; appId: string }) {
  const path = `/management/v1/orgs/${enc(orgId)}/projects/${enc(projectId)}/apps/${enc(appId)}`;
  const app = useLoad(() => api<App>('GET', path), [path]);
  const issuer = signedInIssuer();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <Page title={app.data ? t('applicationNamed', { name: app.data.name }) : t('application')}>
      <p>
        <Link href={`/console/orgs/${enc(orgId)}/projects/${enc(projectId)}`}>{t('backToApplications')}</Link>
      </p>
      <Loading loaded={app}>
        {(a) => (
          <>
            <section class="panel" aria-labelledby="connection-heading">
              <h2 id="connection-heading">{t('connectionDetails')}</h2>
              {a.type === 'saml' ? (
                <>
                  <p>{t('samlHint')}</p>
                  <CopyField label={t('idpEntityId')} value={a.idpEntityId ?? ''} />
                  <CopyField label={t('idpSsoUrl')} value={a.ssoUrl ?? ''} />
                  <CopyField label={t('idpMetadataUrl')} value={a.idpMetadataUrl ?? ''} />
                  <CopyField label={t('spEntityId')} value={a.entityId ?? ''} />
                  <UriList label={t('acsUrl')} uris={a.acsUrls ?? []} />
                </>
              ) : (
                <>
                  {issuer && <CopyField label={t('issuer')} value={issuer} />}
                  {issuer && <CopyField label={t('discoveryUrl')} value={discoveryUrlOf(issuer)} />}
                  <CopyField label={t('clientId')} value={a.clientId} />
                </>
              )}
              {a.type === 'oidc' && <UriList label={t('redirectUri')} uris={a.redirectUris ?? []} />}
              {a.type === 'oidc' && <UriList label={t('postLogoutRedirectUri')} uris={a.postLogoutRedirectUris ?? []} />}
            </section>
            {a.type !== 'api' && <AppAccessPanel key={a.appId} path={path} app={a} onChange={app.reload} />}
            {a.type === 'oidc' && <AppTokensPanel key={`tokens-${a.appId}`} path={path} app={a} onChange={app.reload} />}
            {a.type === 'saml' && <IdpCertificatePanel orgId={orgId} />}
            {a.type === 'saml' && (
              <section class="panel" aria-labelledby="settings-heading">
                <h2 id="settings-heading">{t('samlSettings')}</h2>
                <Notice text={saved ? t('saved') : null} />
                {editing ? (
                  <EditSamlApp
                    key={a.appId}
                    path={path}
                    app={a}
                    onDone={(changed) => {
                      setEditing(false);
                      setSaved(changed);
                      if (changed) app.reload();
                    }}
                    onCancel={() => setEditing(false)}
                  />
                ) : (
                  <>
                    <SamlSettings app={a} />
                    <button
                      type="button"
                      onClick={() => {
                        setSaved(false);
                        setEditing(true);
                      }}
                    >
                      {t('editApplication')}
                    </button>
                  </>
                )}
              </section>
            )}
          </>
        )}
      </Loading>
    </Page>
  );
}

/** Each URI its own copyable field; numbered when there are several, so every copy button has its own name. */
function UriList({ label, uris }: { label: string; uris: string[] }) {
  if (uris.length === 0) {
    return (
      <p>
        {label}: <span class="muted">{t('noneRegistered')}</span>
      </p>
    );
  }
  return (
    <>
      {uris.map((uri, i) => (
        <CopyField key={uri} label={uris.length === 1 ? label : `${label} ${i + 1}`} value={uri} />
      ))}
    </>
  );
}
