import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Schema } from '../api';
import { ActionButton, Checkbox, Field, Form, Loading, Notice, Page, Select, Table, When, useLoad } from '../components';
import { t } from '../i18n';

/** Signing keys (IAM_OWNER): GET /admin/v1/keys, POST /admin/v1/keys/rotate. */
export function KeysPage() {
  const keys = useLoad(() => api<Schema<'SigningKeyListDto'>>('GET', '/admin/v1/keys'), []);
  const [notice, setNotice] = useState<string | null>(null);
  // Rotating switches the key new tokens are signed with at once; relying parties that cached the JWKS learn the
  // new key only when they fetch it again (RFC 7517; OpenID Connect Core 10.1.1), so the operator is told first.
  const [asking, setAsking] = useState(false);
  return (
    <Page title={t('signingKeys')}>
      {asking ? (
        <section class="warning" aria-labelledby="rotate-heading">
          <h2 id="rotate-heading">{t('rotateKeyQuestion')}</h2>
          <p>{t('rotateKeyJwks')}</p>
          <span class="confirm">
            <ActionButton
              label={t('rotateKeyConfirm')}
              danger
              action={async () => {
                const { activeKeyId } = await api<Schema<'RotateKeysResponseDto'>>('POST', '/admin/v1/keys/rotate', {});
                setAsking(false);
                setNotice(t('rotated', { keyId: activeKeyId }));
                keys.reload();
              }}
            />
            <button type="button" onClick={() => setAsking(false)}>
              {t('cancel')}
            </button>
          </span>
        </section>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          {t('rotateKey')}
        </button>
      )}
      <Notice text={notice} />
      <Loading loaded={keys}>
        {({ keys: list }) => (
          <Table caption={t('signingKeys')} headings={[t('keyId'), t('algorithm'), t('status'), t('created')]} searchable>
            {list.map((k) => (
              <tr key={k.keyId}>
                <th scope="row" class="mono">
                  {k.keyId}
                </th>
                <td>{k.alg}</td>
                <td>{k.status}</td>
                <td>
                  <When value={k.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </Page>
  );
}

type Features = Schema<'FeaturesDto'>;

/** Instance features (IAM_OWNER): GET/PUT /admin/v1/features. */
export function FeaturesPage() {
  const features = useLoad(() => api<Features>('GET', '/admin/v1/features'), []);
  return (
    <Page title={t('features')}>
      <Loading loaded={features}>{(current) => <FeaturesForm current={current} />}</Loading>
    </Page>
  );
}

function FeaturesForm({ current }: { current: Features }) {
  const [tokenExchange, setTokenExchange] = useState(current.tokenExchange);
  const [impersonation, setImpersonation] = useState(current.impersonation);
  const [saved, setSaved] = useState(false);
  return (
    <Form
      label={t('features')}
      submit={t('save')}
      action={() => api('PUT', '/admin/v1/features', { tokenExchange, impersonation })}
      onDone={() => setSaved(true)}
    >
      <Checkbox label={t('tokenExchange')} checked={tokenExchange} onChange={setTokenExchange} />
      <Checkbox label={t('impersonation')} checked={impersonation} onChange={setImpersonation} />
      <Notice text={saved ? t('saved') : null} />
    </Form>
  );
}

type LoginPolicy = Schema<'LoginPolicyDto'>;

/** An organization's login policy (ORG_OWNER): GET/PUT /management/v1/orgs/{orgId}/login-policy. */
export function LoginPolicyPage({ orgId }: { orgId: string }) {
  const path = `/management/v1/orgs/${enc(orgId)}/login-policy`;
  const policy = useLoad(() => api<LoginPolicy>('GET', path), [path]);
  return (
    <Page title={t('loginPolicy')}>
      <Loading loaded={policy}>{(current) => <LoginPolicyForm key={path} path={path} current={current} />}</Loading>
    </Page>
  );
}

function LoginPolicyForm({ path, current }: { path: string; current: LoginPolicy }) {
  const [mfa, setMfa] = useState(current.mfa);
  const [passkeys, setPasskeys] = useState(current.passkeys);
  const [allowRegistration, setAllowRegistration] = useState(current.allowRegistration);
  const [passwordLogin, setPasswordLogin] = useState(current.passwordLogin);
  const [inviteOnProvision, setInviteOnProvision] = useState(current.inviteOnProvision);
  const [requireVerifiedEmail, setRequireVerifiedEmail] = useState(current.requireVerifiedEmail);
  const [agentClients, setAgentClients] = useState(current.agentClients ?? 'off');
  const [agentClientHosts, setAgentClientHosts] = useState((current.agentClientHosts ?? []).join(' '));
  const [dynamicRegistration, setDynamicRegistration] = useState(current.dynamicRegistration ?? 'off');
  const [saved, setSaved] = useState(false);
  return (
    <Form
      label={t('loginPolicy')}
      submit={t('save')}
      action={() =>
        api('PUT', path, {
          mfa,
          passkeys,
          allowRegistration,
          passwordLogin,
          inviteOnProvision,
          requireVerifiedEmail,
          agentClients,
          agentClientHosts: agentClientHosts.split(/[\s,]+/).filter(Boolean),
          dynamicRegistration,
        })
      }
      onDone={() => setSaved(true)}
    >
      <Select
        label={t('secondFactor')}
        value={mfa}
        onChange={setMfa}
        options={[
          { value: 'off', label: t('mfaOff') },
          { value: 'optional', label: t('mfaOptional') },
          { value: 'required', label: t('mfaRequired') },
        ]}
      />
      <Checkbox label={t('passkeys')} checked={passkeys} onChange={setPasskeys} />
      <Checkbox label={t('allowRegistration')} checked={allowRegistration} onChange={setAllowRegistration} />
      <Checkbox label={t('passwordLogin')} checked={passwordLogin} onChange={setPasswordLogin} />
      <Checkbox label={t('inviteOnProvision')} checked={inviteOnProvision} onChange={setInviteOnProvision} />
      <Checkbox label={t('requireVerifiedEmail')} checked={requireVerifiedEmail} onChange={setRequireVerifiedEmail} />
      <Select
        label={t('agentClients')}
        value={agentClients}
        onChange={setAgentClients}
        options={[
          { value: 'off', label: t('agentClientsOff') },
          { value: 'consent', label: t('agentClientsConsent') },
          { value: 'allowlist', label: t('agentClientsAllowlist') },
        ]}
      />
      {agentClients === 'allowlist' && <Field label={t('agentClientHosts')} value={agentClientHosts} onInput={setAgentClientHosts} />}
      <Select
        label={t('dynamicRegistration')}
        value={dynamicRegistration}
        onChange={setDynamicRegistration}
        options={[
          { value: 'off', label: t('dynamicRegistrationOff') },
          { value: 'initialAccessToken', label: t('dynamicRegistrationToken') },
          { value: 'open', label: t('dynamicRegistrationOpen') },
        ]}
      />
      <Notice text={saved ? t('saved') : null} />
    </Form>
  );
}
