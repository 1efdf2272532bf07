import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Notice, SearchedTable, When, useSearchedList } from '../components';
import { t } from '../i18n';

/** One person's consent to an agent client at one resource (GET …/users/{userId}/agents, …/agents). */
export type ConnectedAgent = Schema<'ConnectedAgentDto'>;

const LIMIT = 50;

/**
 * The agent clients a person allowed to act for them (docs/agents.md, "Consent and connected agents"): one row per
 * client and resource. A revoke ends the person's consent to that client at every resource and every token it
 * holds for them; the API refuses it (403) when the person holds a role the caller lacks.
 */
export function ConnectedAgents({ base }: { base: string }) {
  // Searched and paged by the server (`?query=` matches the client's name, its id and the resource).
  const agents = useSearchedList(LIMIT, (page) => api<Schema<'ConnectedAgentListDto'>>('GET', `${base}/agents${query(page)}`), [base]);
  const [revoked, setRevoked] = useState<string | null>(null);
  return (
    <section class="panel" aria-labelledby="agents-heading">
      <h2 id="agents-heading">{t('connectedAgents')}</h2>
      <Notice text={revoked} />
      <SearchedTable
        name={t('connectedAgents')}
        list={agents}
        items={(page) => ({ found: page.agents, total: page.total })}
        headings={[t('agent'), t('resource'), t('scopes'), t('connectedAt'), t('changedAt'), t('actions')]}
        empty={[t('noConnectedAgents'), t('noConnectedAgentsNext')]}
        rows={(found) =>
          found.map((a) => (
            <tr key={`${a.clientId} ${a.resource}`} data-agent={a.clientId}>
              <th scope="row">
                <AgentName agent={a} />
              </th>
              <AgentGrant agent={a} />
              <td>
                <DeleteButton
                  label={t('revokeAgent', { name: a.clientName })}
                  confirm={t('confirmRevoke')}
                  action={async () => {
                    setRevoked(null);
                    await api('DELETE', `${base}/agents/${enc(a.clientId)}`);
                    setRevoked(t('agentRevoked', { name: a.clientName }));
                    agents.reload();
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

/** The client's name as consent recorded it, and its client_id (a metadata document URL or a registered id). */
export function AgentName({ agent }: { agent: ConnectedAgent }) {
  return (
    <>
      {agent.clientName}
      <br />
      <span class="mono">{agent.clientId}</span>
    </>
  );
}

/** What the consent allows and since when: its resource ('' for none), scopes, and when given and last widened. */
export function AgentGrant({ agent }: { agent: ConnectedAgent }) {
  return (
    <>
      <td class="mono">{agent.resource || <span class="muted">{t('noResource')}</span>}</td>
      <td>{agent.scopes.join(' ')}</td>
      <td>
        <When value={agent.connectedAt} />
      </td>
      <td>
        <When value={agent.changedAt} />
      </td>
    </>
  );
}
