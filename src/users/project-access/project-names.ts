import type { EntityManager } from 'typeorm';

/** The project's name when it is a project of the organization, else undefined: one read by primary key. */
export async function projectNameIn(manager: EntityManager, orgId: string, projectId: string): Promise<string | undefined> {
  const rows = (await manager.query('SELECT name FROM projects WHERE id = ? AND org_id = ?', [projectId, orgId])) as { name: string }[];
  return rows[0]?.name;
}
