import type { EntityManager } from 'typeorm';

/** The SQL of `external_resources` (src/agents owns it; docs/architecture.md, "Data"). */

export interface ExternalResourceRow {
  id: string;
  orgId: string;
  projectId: string;
  name: string;
  issuer: string;
  resource: string;
  scopes: string[];
  clientIdAtIssuer: string;
  createdAt: number;
}

interface Raw {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  issuer: string;
  resource: string;
  scopes: string;
  client_id_at_issuer: string;
  created_at: number | string;
}

const COLUMNS = 'id, org_id, project_id, name, issuer, resource, scopes, client_id_at_issuer, created_at';

function rowOf(r: Raw): ExternalResourceRow {
  return {
    id: r.id,
    orgId: r.org_id,
    projectId: r.project_id,
    name: r.name,
    issuer: r.issuer,
    resource: r.resource,
    scopes: JSON.parse(r.scopes) as string[],
    clientIdAtIssuer: r.client_id_at_issuer,
    createdAt: Number(r.created_at),
  };
}

export async function insertExternalResource(manager: EntityManager, row: ExternalResourceRow): Promise<void> {
  await manager.query(`INSERT INTO external_resources (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.id,
    row.orgId,
    row.projectId,
    row.name,
    row.issuer,
    row.resource,
    JSON.stringify(row.scopes),
    row.clientIdAtIssuer,
    row.createdAt,
  ]);
}

/** The organization's external resources, oldest first (or the one asked for). */
export async function externalResourcesOf(manager: EntityManager, orgId: string, id?: string): Promise<ExternalResourceRow[]> {
  const rows: Raw[] = await manager.query(
    `SELECT ${COLUMNS} FROM external_resources WHERE org_id = ?${id ? ' AND id = ?' : ''} ORDER BY created_at, id`,
    id ? [orgId, id] : [orgId],
  );
  return rows.map(rowOf);
}

/** The organization's external resource with this issuer and resource indicator, exactly. */
export async function externalResourceAt(manager: EntityManager, orgId: string, issuer: string, resource: string): Promise<ExternalResourceRow | undefined> {
  const rows: Raw[] = await manager.query(`SELECT ${COLUMNS} FROM external_resources WHERE org_id = ? AND issuer = ? AND resource = ?`, [
    orgId,
    issuer,
    resource,
  ]);
  return rows[0] && rowOf(rows[0]);
}

export async function deleteExternalResource(manager: EntityManager, orgId: string, id: string): Promise<boolean> {
  const before = await externalResourcesOf(manager, orgId, id);
  if (before.length === 0) return false;
  await manager.query('DELETE FROM external_resources WHERE org_id = ? AND id = ?', [orgId, id]);
  return true;
}
