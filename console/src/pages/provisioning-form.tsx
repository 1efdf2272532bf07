import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Checkbox, Field, Loading, Select, useLoad } from '../components';
import { t } from '../i18n';

/** A target as `GET …/provisioning/targets/{id}` reads it (docs/provisioning.md): never its token or client secret. */
export type Target = Schema<'TargetDto'>;
type AuthType = Target['auth']['type'];
type UserScope = Target['scope']['users'];
type PushGroups = Target['pushGroups'];
type UserNameSource = Target['userName'];
type OnRemove = Target['onRemove'];

const NEW: Target = {
  id: '',
  name: '',
  baseUrl: '',
  auth: { type: 'bearer' },
  scope: { users: 'all', groupIds: [] },
  pushGroups: 'none',
  userName: 'userName',
  onRemove: 'deactivate',
  rolesFrom: null,
  requestTimeoutMs: 10000,
  enabled: true,
  createdAt: '',
  changedAt: '',
};

/**
 * The fields of a target, for the add and the edit form alike, and the API bodies they make. Nothing is checked
 * here: the server's 400 names the field (the form shows it). The token and client secret are write-only: an edit
 * shows them as stored, and an empty field keeps them (a `PATCH` whose auth has the same type may leave the secret out,
 * unless it changes the base URL or token URL: then the server's 400 asks for the secret, docs/provisioning.md).
 */
export function useTargetFields(orgId: string, target?: Target): { fields: JSX.Element; createBody: () => object; patchBody: () => object } {
  const before = target ?? NEW;
  const [name, setName] = useState(before.name);
  const [baseUrl, setBaseUrl] = useState(before.baseUrl);
  const [authType, setAuthTypeOnly] = useState<AuthType>(before.auth.type);
  const [secret, setSecret] = useState('');
  // A token typed for one type is not the other type's secret.
  const setAuthType = (next: AuthType) => {
    setAuthTypeOnly(next);
    setSecret('');
  };
  const [tokenUrl, setTokenUrl] = useState(before.auth.tokenUrl ?? '');
  const [clientId, setClientId] = useState(before.auth.clientId ?? '');
  const [authScope, setAuthScope] = useState(before.auth.scope ?? '');
  const [users, setUsers] = useState<UserScope>(before.scope.users);
  const [groupIds, setGroupIds] = useState<string[]>(before.scope.groupIds);
  const [pushGroups, setPushGroups] = useState<PushGroups>(before.pushGroups);
  const [userName, setUserName] = useState<UserNameSource>(before.userName);
  const [onRemove, setOnRemove] = useState<OnRemove>(before.onRemove);
  const [requestTimeoutMs, setRequestTimeoutMs] = useState(String(before.requestTimeoutMs));
  const [enabled, setEnabled] = useState(before.enabled);
  // A secret is stored only when editing a target whose auth already has this type.
  const stored = Boolean(target) && before.auth.type === authType;

  const auth = () =>
    authType === 'bearer'
      ? { type: authType, ...(secret || !stored ? { token: secret } : {}) }
      : { type: authType, tokenUrl, clientId, ...(authScope ? { scope: authScope } : {}), ...(secret || !stored ? { clientSecret: secret } : {}) };
  // Sent as typed: anything but a whole number of ms in range is the server's 400 naming requestTimeoutMs.
  const settings = { pushGroups, userName, onRemove, requestTimeoutMs: Number(requestTimeoutMs), enabled };
  // Groups are chosen for users "groups" only (pushGroups "scoped" then pushes them; with all users, every group).
  const chosen = users === 'groups' ? groupIds : [];
  const scope = { users, groupIds: chosen };
  const createBody = () => ({ name, baseUrl, auth: auth(), scope, ...settings });
  const patchBody = () => {
    const authChanged =
      !stored ||
      secret !== '' ||
      (authType === 'oauth_client_credentials' &&
        (tokenUrl !== (before.auth.tokenUrl ?? '') || clientId !== (before.auth.clientId ?? '') || authScope !== (before.auth.scope ?? '')));
    // The same scope sent again is no change; a changed one makes the target read the log again (docs/provisioning.md).
    const scopeChanged =
      users !== before.scope.users || chosen.length !== before.scope.groupIds.length || chosen.some((id) => !before.scope.groupIds.includes(id));
    return { name, baseUrl, ...(authChanged ? { auth: auth() } : {}), ...(scopeChanged ? { scope } : {}), ...settings };
  };

  const fields = (
    <>
      <Field label={t('name')} value={name} onInput={setName} />
      <Field label={t('provBaseUrl')} type="url" value={baseUrl} onInput={setBaseUrl} placeholder="https://api.example.com/scim/v2" />
      <fieldset>
        <legend>{t('provAuth')}</legend>
        <Select
          label={t('type')}
          value={authType}
          onChange={setAuthType}
          options={[
            { value: 'bearer', label: t('provAuthBearer') },
            { value: 'oauth_client_credentials', label: t('provAuthOauth') },
          ]}
        />
        {authType === 'bearer' ? (
          <Field label={stored ? t('provTokenStored') : t('provToken')} type="password" value={secret} onInput={setSecret} autoComplete="off" />
        ) : (
          <>
            <Field label={t('provTokenUrl')} type="url" value={tokenUrl} onInput={setTokenUrl} placeholder="https://login.example.com/oauth/token" />
            <Field label={t('clientId')} value={clientId} onInput={setClientId} />
            <Field label={stored ? t('provClientSecretStored') : t('clientSecret')} type="password" value={secret} onInput={setSecret} autoComplete="off" />
            <Field label={t('provOauthScope')} value={authScope} onInput={setAuthScope} />
          </>
        )}
      </fieldset>
      <Select
        label={t('provUsers')}
        value={users}
        onChange={setUsers}
        options={[
          { value: 'all', label: t('provUsersAll') },
          { value: 'groups', label: t('provUsersGroups') },
        ]}
      />
      {users === 'groups' && <GroupPicker orgId={orgId} chosen={groupIds} onChange={setGroupIds} />}
      <Select
        label={t('provPushGroups')}
        value={pushGroups}
        onChange={setPushGroups}
        options={[
          { value: 'none', label: t('provPushGroupsNone') },
          { value: 'scoped', label: t('provPushGroupsScoped') },
          { value: 'all', label: t('provPushGroupsAll') },
        ]}
      />
      <Select
        label={t('provUserNameFrom')}
        value={userName}
        onChange={setUserName}
        options={[
          { value: 'userName', label: t('provUserNameUserName') },
          { value: 'loginName', label: t('provUserNameLoginName') },
          { value: 'email', label: t('provUserNameEmail') },
        ]}
      />
      <Select
        label={t('provOnRemove')}
        value={onRemove}
        onChange={setOnRemove}
        options={[
          { value: 'deactivate', label: t('provOnRemoveDeactivate') },
          { value: 'delete', label: t('provOnRemoveDelete') },
        ]}
      />
      <Field label={t('provRequestTimeout')} type="number" value={requestTimeoutMs} onInput={setRequestTimeoutMs} />
      <Checkbox label={t('provEnabled')} checked={enabled} onChange={setEnabled} />
    </>
  );
  return { fields, createBody, patchBody };
}

/** The organization's groups as checkboxes; a chosen id the list lacks (a group removed since) still shows, by its id. */
function GroupPicker({ orgId, chosen, onChange }: { orgId: string; chosen: string[]; onChange: (ids: string[]) => void }) {
  const groups = useLoad(() => api<Schema<'GroupListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/groups${query({ limit: 1000 })}`), [orgId]);
  const toggle = (id: string) => (on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((c) => c !== id));
  return (
    <fieldset class="stack">
      <legend>{t('provChosenGroups')}</legend>
      <Loading loaded={groups}>
        {({ groups: list }) => {
          const all = [...list, ...chosen.filter((id) => !list.some((g) => g.id === id)).map((id) => ({ id, displayName: id }))];
          return all.length === 0 ? (
            <p>{t('provNoGroups')}</p>
          ) : (
            all.map((g) => <Checkbox key={g.id} label={g.displayName} checked={chosen.includes(g.id)} onChange={toggle(g.id)} />)
          );
        }}
      </Loading>
    </fieldset>
  );
}
