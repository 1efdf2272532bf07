import type { TestService } from '../../support/service.js';

/**
 * An agent client as CIMD and dynamic registration create them: an application carrying the `agent` mark, which only
 * the code creating such clients sets (docs/agents.md, "Consent and connected agents").
 */
export async function markAgent(svc: TestService, clientId: string, kind: 'cimd' | 'dcr'): Promise<void> {
  await svc.dataSource.query('UPDATE applications SET agent = ? WHERE client_id = ?', [kind, clientId]);
}
