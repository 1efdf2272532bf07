import type { EntityManager } from 'typeorm';
import { changedRows } from '../common/database/changed-rows.js';
import { insertValues } from '../common/database/insert-values.js';
import { placeholders } from '../common/database/placeholders.js';

/** The SQL of the federation tables (src/federation owns them; docs/architecture.md, "Data"). */

export interface IdpRow {
  id: string;
  orgId: string;
  type: string;
  name: string;
  /** JSON (idp-settings.ts). */
  settings: string;
  /** Encrypted, or null. */
  clientSecret: string | null;
  /** SAML: this SP's private key for the IdP, encrypted; null for OIDC. */
  spPrivateKey: string | null;
  domains: string[];
  createdAt: number;
  changedAt: number;
}

interface RawIdp {
  id: string;
  org_id: string;
  type: string;
  name: string;
  settings: string;
  client_secret: string | null;
  sp_private_key: string | null;
  created_at: number | string;
  changed_at: number | string;
}

export async function insertIdp(manager: EntityManager, row: IdpRow): Promise<void> {
  await manager.query(
    'INSERT INTO identity_providers (id, org_id, type, name, settings, client_secret, sp_private_key, created_at, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [row.id, row.orgId, row.type, row.name, row.settings, row.clientSecret, row.spPrivateKey, row.createdAt, row.changedAt],
  );
  await insertValues(
    manager,
    'idp_domains',
    ['domain', 'idp_id'],
    row.domains.map((d) => [d, row.id]),
  );
}

export async function updateIdp(manager: EntityManager, row: IdpRow): Promise<void> {
  await manager.query('UPDATE identity_providers SET name = ?, settings = ?, client_secret = ?, changed_at = ? WHERE id = ? AND org_id = ?', [
    row.name,
    row.settings,
    row.clientSecret,
    row.changedAt,
    row.id,
    row.orgId,
  ]);
  await manager.query('DELETE FROM idp_domains WHERE idp_id = ?', [row.id]);
  await insertValues(
    manager,
    'idp_domains',
    ['domain', 'idp_id'],
    row.domains.map((d) => [d, row.id]),
  );
}

/**
 * Replaces an IdP's settings if it is still the version `expectedChangedAt` (what the upstream's answer was read
 * against); false when it changed in between. Only the settings and `changed_at` are written.
 */
export async function updateIdpSettingsIf(manager: EntityManager, row: IdpRow, expectedChangedAt: number): Promise<boolean> {
  const sql = 'UPDATE identity_providers SET settings = ?, changed_at = ? WHERE id = ? AND changed_at = ?';
  return (await changedRows(manager, sql, [row.settings, row.changedAt, row.id, expectedChangedAt])) === 1;
}

/** The organization's IdPs, oldest first; `forUpdate` inside a transaction locks the one asked for. */
export async function idpsOf(manager: EntityManager, orgId: string, idpId?: string): Promise<IdpRow[]> {
  const rows: RawIdp[] = await manager.query(
    `SELECT id, org_id, type, name, settings, client_secret, sp_private_key, created_at, changed_at FROM identity_providers WHERE org_id = ?${idpId ? ' AND id = ?' : ''} ORDER BY created_at, id`,
    idpId ? [orgId, idpId] : [orgId],
  );
  if (rows.length === 0) return [];
  const domains: { idp_id: string; domain: string }[] = await manager.query(
    `SELECT idp_id, domain FROM idp_domains WHERE idp_id IN (${placeholders(rows.length)}) ORDER BY domain`,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    orgId: r.org_id,
    type: r.type,
    name: r.name,
    settings: r.settings,
    clientSecret: r.client_secret,
    spPrivateKey: r.sp_private_key,
    domains: domains.filter((d) => d.idp_id === r.id).map((d) => d.domain),
    createdAt: Number(r.created_at),
    changedAt: Number(r.changed_at),
  }));
}

/** Domains among `domains` that another IdP than `exceptIdpId` claims, with that IdP's id. */
export async function claimedDomains(manager: EntityManager, domains: readonly string[], exceptIdpId: string | null): Promise<string[]> {
  if (domains.length === 0) return [];
  const rows: { domain: string }[] = await manager.query(`SELECT domain FROM idp_domains WHERE domain IN (${placeholders(domains.length)}) AND idp_id <> ?`, [
    ...domains,
    exceptIdpId ?? '',
  ]);
  return rows.map((r) => r.domain);
}

export async function deleteIdp(manager: EntityManager, orgId: string, idpId: string): Promise<boolean> {
  const found: { id: string }[] = await manager.query('SELECT id FROM identity_providers WHERE id = ? AND org_id = ?', [idpId, orgId]);
  if (found.length === 0) return false;
  // Explicitly, not only by the foreign keys' cascade: SQLite enforces them only where the connection enabled them.
  await manager.query('DELETE FROM user_identities WHERE idp_id = ?', [idpId]);
  await manager.query('DELETE FROM idp_round_trips WHERE idp_id = ?', [idpId]);
  await manager.query('DELETE FROM saml_assertions_seen WHERE idp_id = ?', [idpId]);
  await manager.query('DELETE FROM upstream_saml_sessions WHERE idp_id = ?', [idpId]);
  await manager.query('DELETE FROM idp_domains WHERE idp_id = ?', [idpId]);
  await manager.query('DELETE FROM identity_providers WHERE id = ?', [idpId]);
  return true;
}

export interface IdentityRow {
  idpId: string;
  subject: string;
  userId: string;
  linkedAt: number;
  lastUsedAt: number | null;
}

export async function identitiesOf(manager: EntityManager, userId: string): Promise<IdentityRow[]> {
  const rows: { idp_id: string; subject: string; user_id: string; linked_at: number | string; last_used_at: number | string | null }[] = await manager.query(
    'SELECT idp_id, subject, user_id, linked_at, last_used_at FROM user_identities WHERE user_id = ? ORDER BY linked_at, idp_id',
    [userId],
  );
  return rows.map((r) => ({
    idpId: r.idp_id,
    subject: r.subject,
    userId: r.user_id,
    linkedAt: Number(r.linked_at),
    lastUsedAt: r.last_used_at == null ? null : Number(r.last_used_at),
  }));
}

/** Who holds (idp, subject), and which subject of the IdP the user holds: a link must be new on both sides. */
export async function identityConflicts(
  manager: EntityManager,
  idpId: string,
  subject: string,
  userId: string,
): Promise<{ subjectTaken: boolean; userLinked: boolean }> {
  const rows: { subject: string; user_id: string }[] = await manager.query(
    'SELECT subject, user_id FROM user_identities WHERE idp_id = ? AND (subject = ? OR user_id = ?)',
    [idpId, subject, userId],
  );
  return { subjectTaken: rows.some((r) => r.subject === subject), userLinked: rows.some((r) => r.user_id === userId) };
}

/** Whether any identity is linked through the IdP. */
export async function hasIdentities(manager: EntityManager, idpId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query('SELECT 1 FROM user_identities WHERE idp_id = ? LIMIT 1', [idpId]);
  return rows.length > 0;
}

export async function insertIdentity(manager: EntityManager, row: IdentityRow): Promise<void> {
  await manager.query('INSERT INTO user_identities (idp_id, subject, user_id, linked_at, last_used_at) VALUES (?, ?, ?, ?, ?)', [
    row.idpId,
    row.subject,
    row.userId,
    row.linkedAt,
    row.lastUsedAt,
  ]);
}

export async function deleteIdentity(manager: EntityManager, userId: string, idpId: string, subject: string): Promise<boolean> {
  const found: { subject: string }[] = await manager.query('SELECT subject FROM user_identities WHERE idp_id = ? AND subject = ? AND user_id = ?', [
    idpId,
    subject,
    userId,
  ]);
  if (found.length === 0) return false;
  await manager.query('DELETE FROM user_identities WHERE idp_id = ? AND subject = ?', [idpId, subject]);
  return true;
}

/** The user (idp, subject) is linked to, if any. */
export async function userOfIdentity(manager: EntityManager, idpId: string, subject: string): Promise<string | undefined> {
  const rows: { user_id: string }[] = await manager.query('SELECT user_id FROM user_identities WHERE idp_id = ? AND subject = ?', [idpId, subject]);
  return rows[0]?.user_id;
}

/** Whether an identity provider's identity is linked to the user (its sign-in is the provider's: docs/passwordless.md). */
export async function hasIdentity(manager: EntityManager, userId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query('SELECT 1 AS one FROM user_identities WHERE user_id = ? LIMIT 1', [userId]);
  return rows.length > 0;
}

export async function touchIdentity(manager: EntityManager, idpId: string, subject: string, at: number): Promise<void> {
  await manager.query('UPDATE user_identities SET last_used_at = ? WHERE idp_id = ? AND subject = ?', [at, idpId, subject]);
}

/** An IdP by id alone (the login UI's callback names only the IdP), or undefined. */
export async function idpById(manager: EntityManager, idpId: string): Promise<IdpRow | undefined> {
  const [found]: { org_id: string }[] = await manager.query('SELECT org_id FROM identity_providers WHERE id = ?', [idpId]);
  return found ? (await idpsOf(manager, found.org_id, idpId))[0] : undefined;
}

/** The IdP that claims the domain of a typed login name, if any. */
export async function idpOfDomain(manager: EntityManager, domain: string): Promise<string | undefined> {
  const rows: { idp_id: string }[] = await manager.query('SELECT idp_id FROM idp_domains WHERE domain = ?', [domain]);
  return rows[0]?.idp_id;
}

/** Every IdP that claims a domain (home-realm discovery for first-party applications, which serve every organization). */
export async function idpsWithDomains(manager: EntityManager): Promise<IdpRow[]> {
  const rows: { org_id: string; idp_id: string }[] = await manager.query(
    'SELECT DISTINCT p.org_id, p.id AS idp_id FROM identity_providers p JOIN idp_domains d ON d.idp_id = p.id',
  );
  const found = await Promise.all(rows.map((r) => idpsOf(manager, r.org_id, r.idp_id)));
  return found.flat();
}

/**
 * Records a SAML assertion's ID (hashed) as accepted, until it expires; false when it was accepted before (a replay).
 * The primary key decides between processes: the second insert fails.
 */
export async function firstSightOfAssertion(manager: EntityManager, assertionHash: string, idpId: string, expiresAt: number, now: number): Promise<boolean> {
  await manager.query('DELETE FROM saml_assertions_seen WHERE expires_at <= ?', [now]);
  const seen: unknown[] = await manager.query('SELECT 1 FROM saml_assertions_seen WHERE assertion_hash = ?', [assertionHash]);
  if (seen.length > 0) return false;
  await manager.query('INSERT INTO saml_assertions_seen (assertion_hash, idp_id, expires_at) VALUES (?, ?, ?)', [assertionHash, idpId, expiresAt]);
  return true;
}
