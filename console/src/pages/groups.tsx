import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { ActionButton, DeleteButton, Field, Form, Named, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';
import { UserPicker } from '../user-picker';

const LIMIT = 50;

/** Groups and their members (ORG_USER_MANAGER): /management/v1/orgs/{orgId}/groups and each group's members. */
export function GroupsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/groups`;
  const groups = useSearchedList(LIMIT, (page) => api<Schema<'GroupListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [displayName, setDisplayName] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title={t('groups')}>
      <Form
        label={t('createGroup')}
        submit={t('createGroup')}
        action={() => api('POST', base, { displayName })}
        onDone={() => {
          setDisplayName('');
          groups.reload();
        }}
      >
        <Field label={t('displayName')} value={displayName} onInput={setDisplayName} required />
      </Form>
      <SearchedTable
        name={t('groups')}
        list={groups}
        items={(page) => ({ found: page.groups, total: page.total })}
        headings={[t('displayName'), t('members'), t('grants'), t('actions')]}
        empty={[t('emptyGroups'), t('emptyGroupsNext')]}
        rows={(found) =>
          found.map((g) => (
            <tr key={g.id}>
              <th scope="row">
                <Named name={g.displayName} id={g.id} />
              </th>
              <td>{g.memberCount}</td>
              <td>{g.grantProjects.length > 0 ? <GrantMarker projects={g.grantProjects} /> : <span class="muted">{t('groupHoldsNoGrant')}</span>}</td>
              <td>
                <button type="button" aria-expanded={open === g.id} onClick={() => setOpen(open === g.id ? null : g.id)}>
                  {t('members')}
                </button>
                <DeleteButton
                  action={async () => {
                    await api('DELETE', `${base}/${enc(g.id)}`);
                    groups.reload();
                  }}
                />
              </td>
            </tr>
          ))
        }
      />
      {open && (
        <GroupMembers
          orgId={orgId}
          groupId={open}
          grantProjects={groups.loaded.data?.groups.find((g) => g.id === open)?.grantProjects ?? []}
          onChange={groups.reload}
        />
      )}
    </Page>
  );
}

type GrantProject = Schema<'GrantProjectDto'>;

/**
 * A group that holds a project grant admits its members to the project's applications: only an ORG_OWNER or a
 * machine ORG_USER_MANAGER (SCIM provisioning) changes its members, nobody their own (docs/application-access.md,
 * "Groups that hold a grant"). The marker says so where the members are changed.
 */
function GrantMarker({ projects }: { projects: GrantProject[] }) {
  return (
    <span data-grant-marker>
      <strong>{t('groupHoldsGrant', { projects: projects.map((p) => p.name).join(', ') })}</strong> <span class="muted">{t('groupGrantWhoMayChange')}</span>
    </span>
  );
}

const MEMBERS_LIMIT = 50;

/** A group's members, a page at a time by user name and searched by the server: a group may hold thousands. */
function GroupMembers({ orgId, groupId, grantProjects, onChange }: { orgId: string; groupId: string; grantProjects: GrantProject[]; onChange: () => void }) {
  const membersPath = `/management/v1/orgs/${enc(orgId)}/groups/${enc(groupId)}/members`;
  const members = useSearchedList(MEMBERS_LIMIT, (page) => api<Schema<'GroupMemberListDto'>>('GET', `${membersPath}${query(page)}`), [membersPath]);
  const [userId, setUserId] = useState('');
  const changed = () => {
    members.reload();
    onChange();
  };
  return (
    <section class="panel" aria-labelledby="group-members-heading">
      <h2 id="group-members-heading">{t('groupMembers')}</h2>
      {grantProjects.length > 0 && (
        <p role="note">
          <GrantMarker projects={grantProjects} />
        </p>
      )}
      <Form
        label={t('addMember')}
        submit={t('addMember')}
        action={() => api('PUT', `${membersPath}/${enc(userId.trim())}`, {})}
        onDone={() => {
          setUserId('');
          changed();
        }}
      >
        <UserPicker orgId={orgId} userId={userId} onChange={setUserId} />
      </Form>
      <SearchedTable
        name={t('groupMembers')}
        list={members}
        items={(page) => ({ found: page.members, total: page.total })}
        headings={[t('user'), t('userName'), t('actions')]}
        empty={[t('emptyGroupMembers'), t('emptyGroupMembersNext')]}
        rows={(found) =>
          found.map((m) => (
            <tr key={m.userId} data-member={m.userId}>
              <th scope="row">
                <Named name={m.displayName ?? m.userName} id={m.userId} href={`/console/orgs/${enc(orgId)}/users/${enc(m.userId)}`} />
              </th>
              <td>{m.userName}</td>
              <td>
                <ActionButton
                  label={t('remove')}
                  action={async () => {
                    await api('DELETE', `${membersPath}/${enc(m.userId)}`);
                    changed();
                  }}
                />
              </td>
            </tr>
          ))
        }
      />
    </section>
  );
}
