import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import { ActionButton, DeleteButton, Field, Form, Link, Loading, Notice, Page, SecretOnce, formatDate, useLoad } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import { stateLabel } from './users';

/** GET …/users/{userId}: a human (profile, email, phone) or a machine (name, description, accessTokenType). */
interface User {
  userId?: string;
  userName: string;
  state: string;
  type?: 'human' | 'machine';
  profile?: { firstName?: string; lastName?: string; displayName?: string; preferredLanguage?: string };
  email?: { email?: string; isEmailVerified?: boolean } | string;
  phone?: { phone?: string; isPhoneVerified?: boolean } | string;
  name?: string;
  description?: string;
  accessTokenType?: string;
}

interface Factor {
  id: string;
  type: string;
  name?: string;
  createdAt: string;
}

/** One user: state changes, password, deletion and second factors (every act goes through the API's acting rule, DESIGN §7). */
export function UserDetailPage({ orgId, userId }: { orgId: string; userId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/users/${enc(userId)}`;
  const user = useLoad(() => api<User>('GET', base), [base]);
  const [notice, setNotice] = useState<string | null>(null);
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
                  </>
                ) : (
                  <>
                    <dt>{t('name')}</dt>
                    <dd>{[u.profile?.firstName, u.profile?.lastName].filter(Boolean).join(' ')}</dd>
                    <dt>{t('email')}</dt>
                    <dd>{typeof u.email === 'string' ? u.email : (u.email?.email ?? '')}</dd>
                  </>
                )}
              </dl>
              <section class="panel" aria-labelledby="state-heading">
                <h2 id="state-heading">{t('stateActions')}</h2>
                {u.state === 'active' && <ActionButton label={t('deactivate')} action={act('deactivate', t('deactivated'))} />}
                {u.state === 'inactive' && <ActionButton label={t('reactivate')} action={act('reactivate', t('reactivated'))} />}
                {u.state === 'locked' && <ActionButton label={t('unlock')} action={act('unlock', t('unlocked'))} />}
                <DeleteButton
                  label={t('deleteUser')}
                  action={async () => {
                    await api('DELETE', base);
                    navigate(`/console/orgs/${enc(orgId)}/users`);
                  }}
                />
              </section>
              {machine ? <MachineSecret base={base} /> : <SetPassword base={base} onDone={() => setNotice(t('passwordSet'))} />}
              {!machine && <Factors base={base} />}
            </>
          );
        }}
      </Loading>
    </Page>
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
        <ActionButton label={t('generateSecret')} action={async () => setSecret(await api('POST', `${base}/secret`, {}))} />
      )}
    </section>
  );
}

function Factors({ base }: { base: string }) {
  const factors = useLoad(() => api<{ factors: Factor[] }>('GET', `${base}/factors`), [base]);
  return (
    <section class="panel" aria-labelledby="factors-heading">
      <h2 id="factors-heading">{t('factors')}</h2>
      <Loading loaded={factors}>
        {({ factors: list }) =>
          list.length === 0 ? (
            <p>{t('noFactors')}</p>
          ) : (
            <table>
              <caption>{t('factors')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('type')}</th>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('created')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((f) => (
                  <tr key={f.id}>
                    <th scope="row">{f.type}</th>
                    <td>{f.name ?? ''}</td>
                    <td>{formatDate(f.createdAt)}</td>
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
              </tbody>
            </table>
          )
        }
      </Loading>
    </section>
  );
}
