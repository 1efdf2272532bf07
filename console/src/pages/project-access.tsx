import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Checkbox, DeleteButton, Field, Form, Loading, SearchedTable, Select, Table, useLoad, useSearchedList } from '../components';
import { t } from '../i18n';
import { UserPicker } from '../user-picker';
import { useUserNames } from '../user-names';

type Role = Schema<'ProjectRoleDto'>;
type Grant = Schema<'ProjectGrantDto'>;

const LIMIT = 1000;
/** Grants per page: searched and paged by the server (`?query=` matches the person's or the group's name). */
const GRANTS_LIMIT = 50;

/**
 * A project's roles and grants (ORG_OWNER; docs/application-access.md): roles added, renamed and removed (a removed
 * role leaves every grant), grants to a user (the user picker) or a group (its name), each with some of the roles.
 */
export function ProjectAccess({ orgId, projectId }: { orgId: string; projectId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects/${enc(projectId)}`;
  const roles = useLoad(() => api<Schema<'ProjectRoleListDto'>>('GET', `${base}/roles${query({ limit: LIMIT })}`), [base]);
  const grants = useSearchedList(GRANTS_LIMIT, (page) => api<Schema<'ProjectGrantListDto'>>('GET', `${base}/grants${query(page)}`), [base]);
  const groups = useLoad(() => api<Schema<'GroupListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/groups${query({ limit: LIMIT })}`), [orgId]);
  const keys = roles.data?.roles.map((r) => r.key) ?? [];
  const roleNames = new Map((roles.data?.roles ?? []).map((r) => [r.key, r.displayName || r.key]));
  const groupName = (id: string) => groups.data?.groups.find((g) => g.id === id)?.displayName ?? id;
  // People by name (their id on hover), not by UUID.
  const userNames = useUserNames(orgId, grants.loaded.data?.grants.map((g) => g.userId) ?? []);
  return (
    <>
      <Roles base={base} roles={roles} onChange={() => (roles.reload(), grants.reload())} />
      <section class="panel" aria-labelledby="grants-heading">
        <h2 id="grants-heading">{t('grants')}</h2>
        <p>{t('grantsHint')}</p>
        <CreateGrant orgId={orgId} base={base} keys={keys} roleNames={roleNames} groups={groups.data?.groups ?? []} onDone={grants.reload} />
        <SearchedTable
          name={t('grants')}
          list={grants}
          items={(page) => ({ found: page.grants, total: page.total })}
          headings={[t('grantee'), t('roles'), t('actions')]}
          empty={[t('emptyGrants'), t('emptyGrantsNext')]}
          rows={(list) =>
            list.map((g) => (
              <GrantRow
                key={g.grantId}
                base={base}
                grant={g}
                keys={keys}
                roleNames={roleNames}
                name={g.groupId ? t('groupNamed', { name: groupName(g.groupId) }) : (userNames.get(g.userId ?? '') ?? g.userId ?? '')}
                id={g.groupId ?? g.userId ?? ''}
                onChange={grants.reload}
              />
            ))
          }
        />
      </section>
    </>
  );
}

function Roles({ base, roles, onChange }: { base: string; roles: ReturnType<typeof useLoad<Schema<'ProjectRoleListDto'>>>; onChange: () => void }) {
  const [key, setKey] = useState('');
  const [displayName, setDisplayName] = useState('');
  return (
    <section class="panel" aria-labelledby="roles-heading">
      <h2 id="roles-heading">{t('projectRoles')}</h2>
      <Form
        label={t('addRole')}
        submit={t('addRole')}
        action={() => api('POST', `${base}/roles`, { key, ...(displayName ? { displayName } : {}) })}
        onDone={() => {
          setKey('');
          setDisplayName('');
          onChange();
        }}
      >
        <Field label={t('roleKey')} value={key} onInput={setKey} required />
        <Field label={t('displayName')} value={displayName} onInput={setDisplayName} />
      </Form>
      <Loading loaded={roles}>
        {({ roles: list }) => (
          <Table
            caption={t('projectRoles')}
            headings={[t('roleKey'), t('displayName'), t('actions')]}
            empty={[t('emptyRoles'), t('emptyRolesNext')]}
            searchable
          >
            {list.map((r) => (
              <RoleRow key={r.key} base={base} role={r} onChange={onChange} />
            ))}
          </Table>
        )}
      </Loading>
    </section>
  );
}

function RoleRow({ base, role, onChange }: { base: string; role: Role; onChange: () => void }) {
  const path = `${base}/roles/${enc(role.key)}`;
  const [editing, setEditing] = useState(false);
  const [displayName, setDisplayName] = useState(role.displayName ?? '');
  return (
    <tr>
      <th scope="row" class="mono">
        {role.key}
      </th>
      <td>{role.displayName ?? ''}</td>
      <td>
        {editing ? (
          <Form
            label={t('editRoleNamed', { key: role.key })}
            submit={t('save')}
            action={() => api('PATCH', path, { displayName })}
            onDone={() => (setEditing(false), onChange())}
          >
            <Field label={t('displayName')} value={displayName} onInput={setDisplayName} />
          </Form>
        ) : (
          <button type="button" aria-label={t('editRoleNamed', { key: role.key })} onClick={() => setEditing(true)}>
            {t('edit')}
          </button>
        )}
        <DeleteButton
          label={t('removeRoleNamed', { key: role.key })}
          action={async () => {
            await api('DELETE', path);
            onChange();
          }}
        />
      </td>
    </tr>
  );
}

/** The roles of a grant: one checkbox per role of the project (none checked still admits). */
function RolePicks({ keys, names, picked, onChange }: { keys: string[]; names?: Map<string, string>; picked: string[]; onChange: (roles: string[]) => void }) {
  return (
    <fieldset>
      <legend>{t('roles')}</legend>
      {keys.length === 0 && <p class="muted">{t('noRolesYet')}</p>}
      {keys.map((key) => (
        <Checkbox
          key={key}
          label={names?.get(key) ?? key}
          checked={picked.includes(key)}
          onChange={(on) => onChange(on ? [...picked, key] : picked.filter((k) => k !== key))}
        />
      ))}
    </fieldset>
  );
}

function CreateGrant({
  orgId,
  base,
  keys,
  roleNames,
  groups,
  onDone,
}: {
  orgId: string;
  base: string;
  keys: string[];
  roleNames: Map<string, string>;
  groups: Schema<'GroupDto'>[];
  onDone: () => void;
}) {
  const [to, setTo] = useState<'user' | 'group'>('user');
  const [userId, setUserId] = useState('');
  const [groupId, setGroupId] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const chosenGroup = groupId || groups[0]?.id || '';
  return (
    <Form
      label={t('addGrant')}
      submit={t('addGrant')}
      action={() => api('POST', `${base}/grants`, to === 'user' ? { userId: userId.trim(), roles } : { groupId: chosenGroup, roles })}
      onDone={() => {
        setUserId('');
        setRoles([]);
        onDone();
      }}
    >
      <Select
        label={t('grantTo')}
        value={to}
        onChange={setTo}
        options={[
          { value: 'user', label: t('user') },
          { value: 'group', label: t('group') },
        ]}
      />
      {to === 'user' ? (
        <UserPicker orgId={orgId} userId={userId} onChange={setUserId} />
      ) : (
        <Select label={t('group')} value={chosenGroup} onChange={setGroupId} options={groups.map((g) => ({ value: g.id, label: g.displayName }))} />
      )}
      <RolePicks keys={keys} names={roleNames} picked={roles} onChange={setRoles} />
    </Form>
  );
}

function GrantRow({
  base,
  grant,
  keys,
  roleNames,
  name,
  id,
  onChange,
}: {
  base: string;
  grant: Grant;
  keys: string[];
  roleNames: Map<string, string>;
  name: string;
  id: string;
  onChange: () => void;
}) {
  const path = `${base}/grants/${enc(grant.grantId)}`;
  const [editing, setEditing] = useState(false);
  const [roles, setRoles] = useState(grant.roles);
  return (
    <tr data-grant={grant.grantId}>
      <th scope="row" title={id}>
        {name}
      </th>
      <td>
        {grant.roles.length ? (
          grant.roles.map((key, i) => (
            <span key={key} title={key}>
              {i > 0 && ', '}
              {roleNames.get(key) ?? key}
            </span>
          ))
        ) : (
          <span class="muted">{t('noRoles')}</span>
        )}
      </td>
      <td>
        {editing ? (
          <Form
            label={t('editGrantOf', { name })}
            submit={t('save')}
            action={() => api('PATCH', path, { roles })}
            onDone={() => (setEditing(false), onChange())}
          >
            <RolePicks keys={keys} names={roleNames} picked={roles} onChange={setRoles} />
          </Form>
        ) : (
          <button type="button" aria-label={t('editGrantOf', { name })} onClick={() => setEditing(true)}>
            {t('edit')}
          </button>
        )}
        <DeleteButton
          label={t('removeGrantOf', { name })}
          action={async () => {
            await api('DELETE', path);
            onChange();
          }}
        />
      </td>
    </tr>
  );
}
