import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Checkbox, Field, Form, Link, Loading, Page, Pager, Select, Table, useLoad } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';

const LIMIT = 20;

/**
 * Users of an organization (ORG_USER_MANAGER): searched and paged by the server (`query`, `limit`,
 * `offset`), never loaded whole, so the page stays quick with 100,000 users.
 */
export function UsersPage({ orgId }: { orgId: string }) {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [offset, setOffset] = useState(0);
  const users = useLoad(
    () => api<Schema<'UserListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/users${query({ query: applied, limit: LIMIT, offset })}`),
    [orgId, applied, offset],
  );
  const [creating, setCreating] = useState<'none' | 'human' | 'machine'>('none');
  return (
    <Page title={t('users')}>
      <form
        class="form inline"
        role="search"
        aria-label={t('searchUsers')}
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setApplied(search.trim());
        }}
      >
        <Field label={t('search')} type="search" value={search} onInput={setSearch} />
        <button type="submit">{t('searchButton')}</button>
      </form>
      <p>
        <button type="button" onClick={() => setCreating('human')}>
          {t('newHuman')}
        </button>{' '}
        <button type="button" onClick={() => setCreating('machine')}>
          {t('newMachine')}
        </button>
      </p>
      {creating === 'human' && <CreateHuman orgId={orgId} onCancel={() => setCreating('none')} />}
      {creating === 'machine' && <CreateMachine orgId={orgId} onCancel={() => setCreating('none')} />}
      <Loading loaded={users}>
        {({ users: list, total }) => (
          <>
            <Table
              caption={t('users')}
              headings={[t('userName'), t('displayName'), t('email'), t('type'), t('state')]}
              empty={[t('emptyUsers'), t('emptyUsersNext')]}
            >
              {list.map((u) => (
                <tr key={u.userId}>
                  <th scope="row">
                    <Link href={`/console/orgs/${enc(orgId)}/users/${enc(u.userId)}`}>{u.userName}</Link>
                  </th>
                  <td>{u.displayName ?? ''}</td>
                  <td>{u.email ?? ''}</td>
                  <td>{t(u.type === 'machine' ? 'machine' : 'human')}</td>
                  <td>{stateLabel(u.state)}</td>
                </tr>
              ))}
            </Table>
            <Pager offset={offset} limit={LIMIT} total={total} shown={list.length} onChange={setOffset} />
          </>
        )}
      </Loading>
    </Page>
  );
}

export function stateLabel(state: string): string {
  if (state === 'active') return t('stateActive');
  if (state === 'inactive') return t('stateInactive');
  if (state === 'locked') return t('stateLocked');
  return state;
}

function CreateHuman({ orgId, onCancel }: { orgId: string; onCancel: () => void }) {
  const [userName, setUserName] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const [verified, setVerified] = useState(false);
  const [password, setPassword] = useState('');
  const create = async () => {
    const body = { userName, profile: { firstName, lastName }, email: { email, isEmailVerified: verified }, ...(password ? { password } : {}) };
    const { userId } = await api<Schema<'UserCreatedDto'>>('POST', `/management/v1/orgs/${enc(orgId)}/users/human`, body);
    navigate(`/console/orgs/${enc(orgId)}/users/${enc(userId)}`);
  };
  return (
    <section class="panel">
      <h2>{t('newHuman')}</h2>
      <Form label={t('newHuman')} submit={t('createUser')} action={create}>
        <Field label={t('userName')} value={userName} onInput={setUserName} required autoComplete="off" />
        <Field label={t('firstName')} value={firstName} onInput={setFirstName} required />
        <Field label={t('lastName')} value={lastName} onInput={setLastName} required />
        <Field label={t('email')} type="email" value={email} onInput={setEmail} required />
        <Checkbox label={t('emailVerified')} checked={verified} onChange={setVerified} />
        <Field label={t('initialPassword')} type="password" value={password} onInput={setPassword} autoComplete="new-password" />
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}

function CreateMachine({ orgId, onCancel }: { orgId: string; onCancel: () => void }) {
  const [userName, setUserName] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tokenType, setTokenType] = useState<'opaque' | 'jwt'>('opaque');
  const create = async () => {
    const body = { userName, name, ...(description ? { description } : {}), accessTokenType: tokenType };
    const { userId } = await api<Schema<'UserCreatedDto'>>('POST', `/management/v1/orgs/${enc(orgId)}/users/machine`, body);
    navigate(`/console/orgs/${enc(orgId)}/users/${enc(userId)}`);
  };
  return (
    <section class="panel">
      <h2>{t('newMachine')}</h2>
      <Form label={t('newMachine')} submit={t('createUser')} action={create}>
        <Field label={t('userName')} value={userName} onInput={setUserName} required autoComplete="off" />
        <Field label={t('name')} value={name} onInput={setName} required />
        <Field label={t('description')} value={description} onInput={setDescription} />
        <Select
          label={t('accessTokenType')}
          value={tokenType}
          onChange={setTokenType}
          options={[
            { value: 'opaque', label: t('opaque') },
            { value: 'jwt', label: 'JWT' },
          ]}
        />
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}
