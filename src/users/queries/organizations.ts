import type { DataSource, EntityManager } from 'typeorm';

/** Whether an organization of that id exists (now; organizations can be removed). */
export async function organizationExists(dataSource: DataSource | EntityManager, orgId: string): Promise<boolean> {
  const [row]: unknown[] = await dataSource.query('SELECT 1 AS found FROM organizations WHERE id = ?', [orgId]);
  return row !== undefined;
}

/** An organization's name, for pages that must say whose application asks (the device flow's confirmation). */
export async function organizationName(dataSource: DataSource, orgId: string): Promise<string | undefined> {
  const [row]: { name: string }[] = await dataSource.query('SELECT name FROM organizations WHERE id = ?', [orgId]);
  return row?.name;
}

/** The names of the organizations of these ids; ids of no (or no longer any) organization are absent. */
export async function organizationNames(manager: EntityManager, ids: string[]): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return [];
  return manager.query(`SELECT id, name FROM organizations WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
}

/** The organization whose primary domain (`<slug>.<INSTANCE_DOMAIN>`) this is, if any. */
export async function organizationOfPrimaryDomain(manager: EntityManager, domain: string): Promise<string | undefined> {
  const [row]: { id: string }[] = await manager.query('SELECT id FROM organizations WHERE primary_domain = ?', [domain]);
  return row?.id;
}

/** An organization's primary domain, or undefined when there is no such organization. */
export async function primaryDomainOf(manager: EntityManager, orgId: string): Promise<string | undefined> {
  const [row]: { primary_domain: string }[] = await manager.query('SELECT primary_domain FROM organizations WHERE id = ?', [orgId]);
  return row?.primary_domain;
}
