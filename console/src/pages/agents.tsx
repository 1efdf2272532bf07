import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Link, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';
import { AgentGrant, AgentName } from './user-agents';

const LIMIT = 20;

type Person = Schema<'AgentPersonDto'>;

/**
 * Every agent client the organization's people allowed to act for them, newest change first, searched (client name or
 * id, resource, the person's user name) and paged by the server (ORG_USER_MANAGER; docs/agents.md, "Consent and connected agents"). Each row leads to the person's page, where it
 * is revoked under the acting rule.
 */
export function AgentsPage({ orgId }: { orgId: string }) {
  const agents = useSearchedList(LIMIT, (page) => api<Schema<'OrgConnectedAgentListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/agents${query(page)}`), [
    orgId,
  ]);
  return (
    <Page title={t('agents')}>
      <p>{t('agentsIntro')}</p>
      <SearchedTable
        name={t('agents')}
        list={agents}
        items={(page) => ({ found: page.agents, total: page.total })}
        headings={[t('person'), t('agent'), t('resource'), t('scopes'), t('connectedAt'), t('changedAt')]}
        empty={[t('noOrgAgents'), t('noOrgAgentsNext')]}
        rows={(found, { users }) => {
          const people = new Map(users.map((u) => [u.userId, u]));
          return found.map((a) => (
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
          ));
        }}
      />
    </Page>
  );
}

/** Display name and login name, as the events page names users; undefined for a person no longer there. */
function personName(person: Person | undefined): string | undefined {
  if (!person) return undefined;
  return person.displayName ? `${person.displayName} (${person.loginName})` : person.loginName;
}
