import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Link, Loading, Page, Pager, Table, useLoad } from '../components';
import { t } from '../i18n';
import { AgentGrant, AgentName } from './user-agents';

const LIMIT = 20;

type Person = Schema<'AgentPersonDto'>;

/**
 * Every agent client the organization's people allowed to act for them, newest change first, paged by the server
 * (ORG_USER_MANAGER; docs/agents.md, "Consent and connected agents"). Each row leads to the person's page, where it
 * is revoked under the acting rule.
 */
export function AgentsPage({ orgId }: { orgId: string }) {
  const [offset, setOffset] = useState(0);
  const agents = useLoad(
    () => api<Schema<'OrgConnectedAgentListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/agents${query({ limit: LIMIT, offset })}`),
    [orgId, offset],
  );
  return (
    <Page title={t('agents')}>
      <p>{t('agentsIntro')}</p>
      <Loading loaded={agents}>
        {({ agents: list, total, users }) => {
          const people = new Map(users.map((u) => [u.userId, u]));
          return list.length === 0 && offset === 0 ? (
            <p>{t('noOrgAgents')}</p>
          ) : (
            <>
              <Table caption={t('agents')} headings={[t('person'), t('agent'), t('resource'), t('scopes'), t('connectedAt'), t('changedAt')]}>
                {list.map((a) => (
                  <tr key={`${a.userId} ${a.clientId} ${a.resource}`} data-agent={a.clientId} data-user={a.userId}>
                    <th scope="row">
                      <Link href={`/console/orgs/${enc(orgId)}/users/${enc(a.userId)}`}>{personName(people.get(a.userId)) ?? a.userId}</Link>
                      <br />
                      <span class="mono">{a.userId}</span>
                    </th>
                    <td>
                      <AgentName agent={a} />
                    </td>
                    <AgentGrant agent={a} />
                  </tr>
                ))}
              </Table>
              <Pager offset={offset} limit={LIMIT} total={total} shown={list.length} onChange={setOffset} />
            </>
          );
        }}
      </Loading>
    </Page>
  );
}

/** Display name and login name, as the events page names users; undefined for a person no longer there. */
function personName(person: Person | undefined): string | undefined {
  if (!person) return undefined;
  return person.displayName ? `${person.displayName} (${person.loginName})` : person.loginName;
}
