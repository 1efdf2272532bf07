import type { DataSource } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';
import { statementsOf } from '../../common/database/statements.js';

/** One application of a token's audience: its client id and project; `own` marks the client's own row. */
export interface ApplicationAudienceRow {
  client_id: string;
  project_id: string;
  own: unknown;
}

/**
 * One statement: every application of the client's project (the client's own row names that project)
 * and of the requested projects that belong to the client's organization (an application's, else a
 * machine user's). A plain statement: it runs for every token the OIDC layer issues or checks.
 */
export function applicationAudienceRows(dataSource: DataSource, clientId: string, requestedProjects: string[]): Promise<ApplicationAudienceRow[]> {
  const requested = requestedProjects.length;
  const sql = `SELECT m.client_id, m.project_id, CASE WHEN m.client_id = ? THEN 1 ELSE 0 END AS own FROM applications m
      WHERE m.project_id IN (SELECT a.project_id FROM applications a WHERE a.client_id = ?)${
        requested > 0
          ? ` OR (m.project_id IN (${placeholders(requested)}) AND m.org_id = COALESCE((SELECT a.org_id FROM applications a WHERE a.client_id = ?), (SELECT u.org_id FROM users u WHERE u.id = ?)))`
          : ''
      }`;
  return statementsOf(dataSource).rows<ApplicationAudienceRow>(sql, [clientId, clientId, ...requestedProjects, ...(requested > 0 ? [clientId, clientId] : [])]);
}

/** Which of these project ids are projects of the organization. */
export async function projectsOfOrganization(dataSource: DataSource, orgId: string, projectIds: string[]): Promise<Set<string>> {
  const rows = await statementsOf(dataSource).rows<{ id: string }>(`SELECT id FROM projects WHERE org_id = ? AND id IN (${placeholders(projectIds.length)})`, [
    orgId,
    ...projectIds,
  ]);
  return new Set(rows.map((r) => r.id));
}
