import type { EntityManager } from 'typeorm';
import { readRows } from '../common/database/statements.js';
import { DomainError } from '../common/errors/domain-error.js';

/**
 * The per-organization count of human users (table `org_user_counts`, one row per organization,
 * created with it). Every path that adds or deletes human users changes it in the same transaction,
 * so it is exact whenever a transaction is not in flight; `UPDATE … SET humans = humans + ?` is
 * atomic under concurrent writers on both databases.
 *
 * The same row holds the organization's order version: raised with every change of the count and by
 * `orderChanged` for a human user's new userName, the only other change of the order of its human users
 * by userName or id (ids and organizations never change). SCIM's sort-key checkpoints serve a page only
 * while it is unchanged (src/users/user-order-checkpoints.ts).
 */

/** A new organization starts at zero (inside its creating transaction). */
export async function startCount(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('INSERT INTO org_user_counts (org_id, humans) VALUES (?, 0)', [orgId]);
}

/**
 * Counts `added` new human users of the organization. The row exists exactly when the organization
 * does, so this is also the existence check before inserting them (404 rather than a foreign key error).
 */
export async function countAdded(manager: EntityManager, orgId: string, added: number): Promise<void> {
  if (!manager.queryRunner) throw new Error('countAdded runs inside the transaction that adds the users');
  const result = await manager.queryRunner.query(
    'UPDATE org_user_counts SET humans = humans + ?, order_version = order_version + 1 WHERE org_id = ?',
    [added, orgId],
    true,
  );
  if (result.affected === 0) throw DomainError.notFound('organization');
}

export async function countRemoved(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('UPDATE org_user_counts SET humans = humans - 1, order_version = order_version + 1 WHERE org_id = ?', [orgId]);
}

/** A human user of the organization changed its userName (inside that transaction). */
export async function orderChanged(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('UPDATE org_user_counts SET order_version = order_version + 1 WHERE org_id = ?', [orgId]);
}

/** Human users of the organization (0 for an unknown one). */
export async function humanCount(manager: EntityManager, orgId: string): Promise<number> {
  const [row] = await readRows<{ humans: number | string }>(manager, 'SELECT humans FROM org_user_counts WHERE org_id = ?', [orgId]);
  return Number(row?.humans ?? 0);
}
