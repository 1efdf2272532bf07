import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Schema } from '../api';
import {
  ActionButton,
  Checkbox,
  DeleteButton,
  Field,
  Form,
  Link,
  Loading,
  Notice,
  Page,
  SecretOnce,
  Select,
  Table,
  TextArea,
  When,
  useLoad,
} from '../components';
import { Credentials } from './credentials';
import { Sessions } from './user-sessions';
import { ConnectedAgents } from './user-agents';
import { t } from '../i18n';
import { navigate } from '../router';
import { stateLabel } from './users';
import { EffectiveGrants } from './user-grants';

/** GET …/users/{userId}: a human (profile, email, phone) or a machine (name, description, accessTokenType). */
type User = Schema<'UserDto'>;

/** One user: state changes, password, deletion and second factors (every act goes through the API's acting rule, SECURITY.md, "Who may act on whom"). */
export function UserDetailPage({ orgId, userId }: { orgId: string; userId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/users/${enc(userId)}`;
  const user = useLoad(() => api<User>('GET', base), [base]);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const act = (path: string, done: string) => async () => {
    setNotice(null);
    await api('POST', `${base}/${path}`, {});
    setNotice(done);
    user.reload();
  };
  return (
    <Page title={t('user')}>
      <p>
        <Link href={`/console/orgs/${enc(orgId)}/users`}>{t('backToUsers')}</Link>
      </p>
      <Notice text={notice} />
      <Loading loaded={user}>
        {(u) => {
          const machine = u.type === 'machine' || (u.type === undefined && u.name !== undefined && u.profile === undefined);
          return (
            <>
              <dl class="facts">
                <dt>{t('userName')}</dt>
                <dd>{u.userName}</dd>
                <dt>{t('id')}</dt>
                <dd class="mono">{userId}</dd>
                <dt>{t('type')}</dt>
                <dd>{t(machine ? 'machine' : 'human')}</dd>
                <dt>{t('state')}</dt>
                <dd>{stateLabel(u.state)}</dd>
                {machine ? (
                  <>
                    <dt>{t('name')}</dt>
                    <dd>{u.name ?? ''}</dd>
                    <dt>{t('description')}</dt>
                    <dd>{u.description ?? ''}</dd>
                    <dt>{t('accessTokenType')}</dt>
                    <dd>{u.accessTokenType === 'jwt' ? 'JWT' : t('opaque')}</dd>
                  </>
                ) : (
                  <>
                    <dt>{t('name')}</dt>
                    <dd>{[u.profile?.firstName, u.profile?.lastName].filter(Boolean).join(' ')}</dd>
                    <dt>{t('displayName')}</dt>
                    <dd>{u.profile?.displayName ?? ''}</dd>
                    <dt>{t('preferredLanguage')}</dt>
                    <dd>{u.profile?.preferredLanguage ?? ''}</dd>
                    <dt>{t('email')}</dt>
                    <dd>
                      {emailOf(u).email}
                      {emailOf(u).email && (
                        <span data-email-verified={String(emailOf(u).isEmailVerified)}> ({emailOf(u).isEmailVerified ? t('verified') : t('notVerified')})</span>
                      )}
                    </dd>
                    <dt>{t('phone')}</dt>
                    <dd>{phoneOf(u).phone}</dd>
                  </>
                )}
              </dl>
              {editing ? (
                <EditUser
                  base={base}
                  user={u}
                  machine={machine}
                  onCancel={() => setEditing(false)}
                  onDone={() => {
                    setEditing(false);
                    setNotice(t('saved'));
                    user.reload();
                  }}
                />
              ) : (
                <p>
                  <button type="button" onClick={() => setEditing(true)}>
                    {t('editUser')}
                  </button>
                </p>
              )}
              <section class="panel" aria-labelledby="state-heading">
                <h2 id="state-heading">{t('stateActions')}</h2>
                {u.state === 'active' && <ActionButton label={t('deactivate')} action={act('deactivate', t('deactivated'))} />}
                {u.state === 'inactive' && <ActionButton label={t('reactivate')} action={act('reactivate', t('reactivated'))} />}
                {u.state === 'locked' && <ActionButton label={t('unlock')} action={act('unlock', t('unlocked'))} />}
                {!machine && u.state !== 'inactive' && emailOf(u).email && <ActionButton label={t('invite')} action={act('invite', t('invited'))} />}
                {!machine && u.state !== 'inactive' && emailOf(u).email && (
                  <ActionButton label={t('sendReset')} action={act('password/reset', t('resetSent'))} />
                )}
                {!machine && emailOf(u).email && !emailOf(u).isEmailVerified && (
                  <ActionButton label={t('sendVerification')} action={act('email/verify', t('verificationSent'))} />
                )}
                <DeleteButton
                  label={t('deleteUser')}
                  action={async () => {
                    await api('DELETE', base);
                    navigate(`/console/orgs/${enc(orgId)}/users`);
                  }}
                />
              </section>
              {machine ? <MachineCredentials base={base} userId={userId} /> : <SetPassword base={base} onDone={() => setNotice(t('passwordSet'))} />}
              {!machine && <Factors base={base} />}
              {!machine && <Identities base={base} />}
              {!machine && <Sessions base={base} />}
              {!machine && <ConnectedAgents base={base} />}
              <EffectiveGrants orgId={orgId} base={base} />
            </>
          );
        }}
      </Loading>
    </Page>
  );
}

function emailOf(u: User): { email: string; isEmailVerified: boolean } {
  return typeof u.email === 'string'
    ? { email: u.email, isEmailVerified: false }
    : { email: u.email?.email ?? '', isEmailVerified: Boolean(u.email?.isEmailVerified) };
}

function phoneOf(u: User): { phone: string; isPhoneVerified: boolean } {
  return typeof u.phone === 'string'
    ? { phone: u.phone, isPhoneVerified: false }
    : { phone: u.phone?.phone ?? '', isPhoneVerified: Boolean(u.phone?.isPhoneVerified) };
}

/**
 * PATCH …/users/{userId} with only what changed (the API takes a partial body, docs/product-rules.md,
 * "API"): an untouched e-mail keeps its verification, an emptied phone is removed (`phone: null`).
 */
function EditUser({ base, user, machine, onDone, onCancel }: { base: string; user: User; machine: boolean; onDone: () => void; onCancel: () => void }) {
  const email0 = emailOf(user);
  const phone0 = phoneOf(user);
  const [userName, setUserName] = useState(user.userName);
  const [firstName, setFirstName] = useState(user.profile?.firstName ?? '');
  const [lastName, setLastName] = useState(user.profile?.lastName ?? '');
  const [displayName, setDisplayName] = useState(user.profile?.displayName ?? '');
  const [preferredLanguage, setPreferredLanguage] = useState(user.profile?.preferredLanguage ?? '');
  const [email, setEmail] = useState(email0.email);
  const [emailVerified, setEmailVerified] = useState(email0.isEmailVerified);
  const [phone, setPhone] = useState(phone0.phone);
  const [phoneVerified, setPhoneVerified] = useState(phone0.isPhoneVerified);
  const [name, setName] = useState(user.name ?? '');
  const [description, setDescription] = useState(user.description ?? '');
  const [tokenType, setTokenType] = useState<'opaque' | 'jwt'>(user.accessTokenType === 'jwt' ? 'jwt' : 'opaque');
  const changes = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {};
    if (userName !== user.userName) body.userName = userName;
    if (machine) {
      if (name !== (user.name ?? '')) body.name = name;
      if (description !== (user.description ?? '')) body.description = description === '' ? null : description;
      if (tokenType !== (user.accessTokenType === 'jwt' ? 'jwt' : 'opaque')) body.accessTokenType = tokenType;
      return body;
    }
    const profile: Record<string, string> = {};
    if (firstName !== (user.profile?.firstName ?? '')) profile.firstName = firstName;
    if (lastName !== (user.profile?.lastName ?? '')) profile.lastName = lastName;
    if (displayName !== (user.profile?.displayName ?? '')) profile.displayName = displayName;
    if (preferredLanguage !== (user.profile?.preferredLanguage ?? '') && preferredLanguage !== '') profile.preferredLanguage = preferredLanguage;
    if (Object.keys(profile).length > 0) body.profile = profile;
    if (email !== email0.email || emailVerified !== email0.isEmailVerified) body.email = { email, isEmailVerified: emailVerified };
    if (phone === '' && phone0.phone !== '') body.phone = null;
    else if (phone !== '' && (phone !== phone0.phone || phoneVerified !== phone0.isPhoneVerified)) body.phone = { phone, isPhoneVerified: phoneVerified };
    return body;
  };
  return (
    <section class="panel" aria-labelledby="edit-heading">
      <h2 id="edit-heading">{t('editUser')}</h2>
      <Form
        label={t('editUser')}
        submit={t('save')}
        action={async () => {
          const body = changes();
          if (Object.keys(body).length > 0) await api('PATCH', base, body);
        }}
        onDone={onDone}
      >
        <Field label={t('userName')} value={userName} onInput={setUserName} required />
        {machine ? (
          <>
            <Field label={t('name')} value={name} onInput={setName} required />
            <TextArea label={t('description')} value={description} onInput={setDescription} />
            <Select
              label={t('accessTokenType')}
              value={tokenType}
              onChange={setTokenType}
              options={[
                { value: 'opaque', label: t('opaque') },
                { value: 'jwt', label: 'JWT' },
              ]}
            />
          </>
        ) : (
          <>
            <Field label={t('firstName')} value={firstName} onInput={setFirstName} required />
            <Field label={t('lastName')} value={lastName} onInput={setLastName} required />
            <Field label={t('displayName')} value={displayName} onInput={setDisplayName} />
            <Field label={t('preferredLanguage')} value={preferredLanguage} onInput={setPreferredLanguage} placeholder="en" />
            <Field label={t('email')} type="email" value={email} onInput={setEmail} required />
            <Checkbox label={t('emailVerified')} checked={emailVerified} onChange={setEmailVerified} />
            <Field label={t('phone')} value={phone} onInput={setPhone} />
            <Checkbox label={t('phoneVerified')} checked={phoneVerified} onChange={setPhoneVerified} />
          </>
        )}
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}

/** A machine user's credentials: its client secret, keys (JWT profile, RFC 7523) and personal access tokens. */
function MachineCredentials({ base, userId }: { base: string; userId: string }) {
  return (
    <>
      <MachineSecret base={base} />
      <Credentials
        id="keys"
        title={t('machineKeys')}
        path={`${base}/keys`}
        rows={(data) => {
          const { keys, total } = data as { keys: { keyId: string; createdAt: string; expirationDate?: string }[]; total: number };
          return { items: keys.map((k) => ({ id: k.keyId, createdAt: k.createdAt, expirationDate: k.expirationDate })), total };
        }}
        addLabel={t('addKey')}
        secretLabel={t('privateKey')}
        multiline
        withExpiry
        add={async (body) => {
          const key = await api<Schema<'MachineKeyDto'>>('POST', `${base}/keys`, body);
          return { secret: key.keyDetails.key, download: { name: `${userId}-${key.keyId}.json`, content: JSON.stringify(key.keyDetails, null, 2) } };
        }}
      />
      <Credentials
        id="pats"
        title={t('pats')}
        path={`${base}/pats`}
        rows={(data) => {
          const { pats, total } = data as { pats: { tokenId: string; createdAt: string; expirationDate?: string }[]; total: number };
          return { items: pats.map((p) => ({ id: p.tokenId, createdAt: p.createdAt, expirationDate: p.expirationDate })), total };
        }}
        addLabel={t('addPat')}
        secretLabel={t('pat')}
        withExpiry
        add={async (body) => ({ secret: (await api<Schema<'PersonalAccessTokenDto'>>('POST', `${base}/pats`, body)).token })}
      />
    </>
  );
}

function SetPassword({ base, onDone }: { base: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  return (
    <section class="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">{t('setPassword')}</h2>
      <Form
        label={t('setPassword')}
        submit={t('setPassword')}
        action={() => api('PUT', `${base}/password`, { password })}
        onDone={() => {
          setPassword('');
          onDone();
        }}
      >
        <Field label={t('newPassword')} type="password" value={password} onInput={setPassword} required autoComplete="new-password" />
      </Form>
    </section>
  );
}

function MachineSecret({ base }: { base: string }) {
  const [secret, setSecret] = useState<{ clientId: string; clientSecret: string } | null>(null);
  const [removed, setRemoved] = useState(false);
  return (
    <section class="panel" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{t('clientSecret')}</h2>
      {secret ? (
        <>
          <p>
            {t('clientId')}: <span class="mono">{secret.clientId}</span>
          </p>
          <SecretOnce label={t('clientSecret')} value={secret.clientSecret} onDismiss={() => setSecret(null)} />
        </>
      ) : (
        <>
          <ActionButton
            label={t('generateSecret')}
            action={async () => {
              setRemoved(false);
              setSecret(await api('POST', `${base}/secret`, {}));
            }}
          />
          <DeleteButton
            label={t('removeSecret')}
            action={async () => {
              await api('DELETE', `${base}/secret`);
              setRemoved(true);
            }}
          />
          <Notice text={removed ? t('secretRemoved') : null} />
        </>
      )}
    </section>
  );
}

function Factors({ base }: { base: string }) {
  const factors = useLoad(() => api<Schema<'UserFactorListDto'>>('GET', `${base}/factors`), [base]);
  return (
    <section class="panel" aria-labelledby="factors-heading">
      <h2 id="factors-heading">{t('factors')}</h2>
      <Loading loaded={factors}>
        {({ factors: list }) =>
          list.length === 0 ? (
            <p>{t('noFactors')}</p>
          ) : (
            <Table caption={t('factors')} headings={[t('type'), t('name'), t('created'), t('actions')]} searchable>
              {list.map((f) => (
                <tr key={f.id}>
                  <th scope="row">{f.type}</th>
                  <td>{f.name ?? ''}</td>
                  <td>
                    <When value={f.createdAt} />
                  </td>
                  <td>
                    <DeleteButton
                      label={t('remove')}
                      action={async () => {
                        await api('DELETE', `${base}/factors/${enc(f.id)}`);
                        factors.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
    </section>
  );
}

/** The user's linked upstream identities (docs/federation.md): listed, and unlinked one by one. */
function Identities({ base }: { base: string }) {
  const identities = useLoad(() => api<Schema<'IdentityListDto'>>('GET', `${base}/identities`), [base]);
  return (
    <section class="panel" aria-labelledby="identities-heading">
      <h2 id="identities-heading">{t('linkedIdentities')}</h2>
      <Loading loaded={identities}>
        {({ identities: list }) =>
          list.length === 0 ? (
            <p>{t('noIdentities')}</p>
          ) : (
            <Table caption={t('linkedIdentities')} headings={[t('subject'), t('identityProvider'), t('linked'), t('actions')]} searchable>
              {list.map((i) => (
                <tr key={`${i.idpId}/${i.subject}`}>
                  <th scope="row" class="mono">
                    {i.subject}
                  </th>
                  <td class="mono">{i.idpId}</td>
                  <td>
                    <When value={i.linkedAt} />
                  </td>
                  <td>
                    <DeleteButton
                      label={t('unlink')}
                      action={async () => {
                        await api('DELETE', `${base}/identities/${enc(i.idpId)}/${enc(i.subject)}`);
                        identities.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
    </section>
  );
}
