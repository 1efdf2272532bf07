import type { EntityManager } from 'typeorm';
import type { ConnectedAgent } from '../../account/account-protocol.js';
import { consentsOf } from './agent-consents.js';

/** The person's consents grouped by client: one entry per agent, with its scopes at each resource. */
export async function connectedAgentsOf(manager: EntityManager, userId: string): Promise<ConnectedAgent[]> {
  const agents = new Map<string, ConnectedAgent>();
  for (const row of await consentsOf(manager, userId)) {
    const agent = agents.get(row.clientId) ?? { clientId: row.clientId, clientName: row.clientName, grants: [] };
    agent.grants.push({ resource: row.resource, scopes: row.scopes });
    agents.set(row.clientId, agent);
  }
  return [...agents.values()];
}
