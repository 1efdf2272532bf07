import type { DataSource } from 'typeorm';

/** Whether an organization of that id exists (now; organizations can be removed). */
export async function organizationExists(dataSource: DataSource, orgId: string): Promise<boolean> {
  const [row]: unknown[] = await dataSource.query('SELECT 1 AS found FROM organizations WHERE id = ?', [orgId]);
  return row !== undefined;
}

/** An organization's name, for pages that must say whose application asks (the device flow's confirmation). */
export async function organizationName(dataSource: DataSource, orgId: string): Promise<string | undefined> {
  const [row]: { name: string }[] = await dataSource.query('SELECT name FROM organizations WHERE id = ?', [orgId]);
  return row?.name;
}
