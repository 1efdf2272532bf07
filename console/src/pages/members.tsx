import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Schema } from '../api';
import { Checkbox, DeleteButton, Form, Loading, Page, Table, useLoad } from '../components';
import { t } from '../i18n';
import { UserPicker } from '../user-picker';

/**
 * Members and their roles: an organization's (ORG_OWNER; ORG_OWNER, ORG_USER_MANAGER) or the instance's
 * (IAM_OWNER; IAM_OWNER). Granting acts on the user, so the API applies the acting rule (SECURITY.md, "Who may act on whom"). The user is
 * picked by name (or its id typed).
 */
export function MembersPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/members` : '/admin/v1/members';
  const available = orgId ? ['ORG_OWNER', 'ORG_USER_MANAGER'] : ['IAM_OWNER'];
  const members = useLoad(() => api<Schema<'MemberListDto'>>('GET', base), [base]);
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
      <Loading loaded={members}>
        {({ members: list }) => (
          <Table caption={t('members')} headings={[t('userId'), t('roles'), t('actions')]}>
            {list.map((m) => (
              <tr key={m.userId}>
                <th scope="row" class="mono">
                  {m.userId}
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
            ))}
          </Table>
        )}
      </Loading>
    </Page>
  );
}
