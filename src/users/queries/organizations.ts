import type { DataSource } from 'typeorm';

/** Whether an organization of that id exists (now; organizations can be removed). */
export async function organizationExists(dataSource: DataSource, orgId: string): Promise<boolean> {
  const [row]: unknown[] = await dataSource.query('SELECT 1 AS found FROM organizations WHERE id = ?', [orgId]);
  return row !== undefined;
}
