import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Checkbox, DeleteButton, Form, Named, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';
import { UserPicker } from '../user-picker';

const LIMIT = 50;

/** "Ada Lovelace (ada@acme.localhost)": the names the list answers with; a user it could not name keeps its id. */
export function memberLabel(member: Schema<'MemberDto'>): string | undefined {
  if (!member.loginName) return undefined;
  return member.displayName ? `${member.displayName} (${member.loginName})` : member.loginName;
}

/**
 * Members and their roles: an organization's (ORG_OWNER; ORG_OWNER, ORG_USER_MANAGER) or the instance's
 * (IAM_OWNER; IAM_OWNER). Granting acts on the user, so the API applies the acting rule (SECURITY.md, "Who may act on whom"). The user is
 * picked by name (or its id typed). The list names its members itself, also those of another organization.
 */
export function MembersPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/members` : '/admin/v1/members';
  const available = orgId ? ['ORG_OWNER', 'ORG_USER_MANAGER'] : ['IAM_OWNER'];
  const members = useSearchedList(LIMIT, (page) => api<Schema<'MemberListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [userId, setUserId] = useState('');
  const [roles, setRoles] = useState<string[]>([available[available.length - 1]]);
  const toggle = (role: string, on: boolean) => setRoles(on ? [...roles, role] : roles.filter((r) => r !== role));
  return (
    <Page title={orgId ? t('orgMembers') : t('instanceMembers')}>
      <Form
        label={t('grantRoles')}
        submit={t('grantRoles')}
        action={() => api('PUT', `${base}/${enc(userId.trim())}`, { roles })}
        onDone={() => {
          setUserId('');
          members.reload();
        }}
      >
        <UserPicker orgId={orgId} userId={userId} onChange={setUserId} />
        <fieldset>
          <legend>{t('roles')}</legend>
          {available.map((role) => (
            <Checkbox key={role} label={role} checked={roles.includes(role)} onChange={(on) => toggle(role, on)} />
          ))}
        </fieldset>
      </Form>
      <SearchedTable
        name={t('members')}
        list={members}
        items={(page) => ({ found: page.members, total: page.total })}
        headings={[t('user'), t('roles'), t('actions')]}
        empty={[t('emptyMembers'), t('emptyMembersNext')]}
        rows={(found) =>
          found.map((m) => (
            <tr key={m.userId}>
              <th scope="row">
                <Named name={memberLabel(m)} id={m.userId} />
              </th>
              <td>{m.roles.join(', ')}</td>
              <td>
                <DeleteButton
                  label={t('removeMember')}
                  action={async () => {
                    await api('DELETE', `${base}/${enc(m.userId)}`);
                    members.reload();
                  }}
                />
              </td>
            </tr>
          ))
        }
      />
    </Page>
  );
}
