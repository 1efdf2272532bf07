import type { EntityManager } from 'typeorm';

/** The SQL of `org_domains` (src/federation owns it; docs/architecture.md, "Data"). */

export interface OrgDomainRow {
  domain: string;
  orgId: string;
  /** Published in the domain's DNS or at its HTTPS file by the owner (domain-verification.ts). */
  challenge: string;
  createdAt: number;
  verifiedAt: number | null;
}

interface RawDomain {
  domain: string;
  org_id: string;
  challenge: string;
  created_at: number | string;
  verified_at: number | string | null;
}

const COLUMNS = 'domain, org_id, challenge, created_at, verified_at';

function rowOf(r: RawDomain): OrgDomainRow {
  return {
    domain: r.domain,
    orgId: r.org_id,
    challenge: r.challenge,
    createdAt: Number(r.created_at),
    verifiedAt: r.verified_at == null ? null : Number(r.verified_at),
  };
}

export async function insertOrgDomain(manager: EntityManager, row: OrgDomainRow): Promise<void> {
  await manager.query(`INSERT INTO org_domains (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`, [row.domain, row.orgId, row.challenge, row.createdAt, row.verifiedAt]);
}

/** The organization's domains, by name. */
export async function orgDomainsOf(manager: EntityManager, orgId: string): Promise<OrgDomainRow[]> {
  const rows: RawDomain[] = await manager.query(`SELECT ${COLUMNS} FROM org_domains WHERE org_id = ? ORDER BY domain`, [orgId]);
  return rows.map(rowOf);
}

/** The domain's row, whichever organization holds it. */
export async function orgDomain(manager: EntityManager, domain: string): Promise<OrgDomainRow | undefined> {
  const [row]: RawDomain[] = await manager.query(`SELECT ${COLUMNS} FROM org_domains WHERE domain = ?`, [domain]);
  return row ? rowOf(row) : undefined;
}

export async function markOrgDomainVerified(manager: EntityManager, domain: string, orgId: string, at: number): Promise<void> {
  await manager.query('UPDATE org_domains SET verified_at = ? WHERE domain = ? AND org_id = ? AND verified_at IS NULL', [at, domain, orgId]);
}

export async function deleteOrgDomain(manager: EntityManager, domain: string, orgId: string): Promise<void> {
  await manager.query('DELETE FROM org_domains WHERE domain = ? AND org_id = ?', [domain, orgId]);
}

export async function deleteOrgDomainsOf(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('DELETE FROM org_domains WHERE org_id = ?', [orgId]);
}

/** The IdPs of the organization that claim the domain for home-realm discovery. */
export async function idpsClaiming(manager: EntityManager, orgId: string, domain: string): Promise<string[]> {
  const rows: { id: string }[] = await manager.query(
    'SELECT p.id FROM idp_domains d JOIN identity_providers p ON p.id = d.idp_id WHERE d.domain = ? AND p.org_id = ?',
    [domain, orgId],
  );
  return rows.map((r) => r.id);
}
