import type { EntityManager } from 'typeorm';
import { lockingRead } from '../../common/database/locking-read.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';

/**
 * A verified address belongs to at most one user of an organization (docs/product-rules.md, "Verified
 * addresses"): an upstream identity provider that links by e-mail trusts it to name one person. Compared
 * case-insensitively, as linking compares it. A locking read in the caller's transaction: on MySQL/MariaDB it sees
 * what is committed now and holds the address's range of `ix_users_org_email`, so two transactions verifying one
 * address for two users cannot both commit (one deadlocks, runs again and sees the other's).
 */
export async function verifiedByAnother(manager: EntityManager, orgId: string, email: string, userId: string | null): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT id FROM users WHERE org_id = ? AND email_lower = ? AND email_verified = 1 AND id <> ? LIMIT 1${lockingRead(manager)}`,
    [orgId, email.toLowerCase(), userId ?? ''],
  );
  return rows.length > 0;
}

/** The 409 of a request that would make a second user of the organization hold an address verified. */
export function verifiedElsewhereError(): DomainError {
  return new DomainError(ErrorCode.Conflict, 'this e-mail address is verified for another user of the organization');
}
