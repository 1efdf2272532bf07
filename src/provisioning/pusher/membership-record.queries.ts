import type { EntityManager } from 'typeorm';
import { insertValues } from '../../common/database/insert-values.js';
import { placeholders } from '../../common/database/placeholders.js';

/**
 * The SQL of `provisioning_members` (src/provisioning owns it): per target and group, the remote ids of the members
 * the target was told to list (docs/provisioning.md, "Groups"). Membership changes are computed from it.
 */

/** Ids per statement: well below SQLite's bound-parameter limit. */
const CHUNK = 5_000;

/** The remote ids of the members recorded for the group at the target. */
export async function recordedMembers(manager: EntityManager, targetId: string, groupId: string): Promise<Set<string>> {
  const rows: { member_id: string }[] = await manager.query('SELECT member_id FROM provisioning_members WHERE target_id = ? AND group_id = ?', [
    targetId,
    groupId,
  ]);
  return new Set(rows.map((r) => r.member_id));
}

/** The target now lists these members too (already recorded ones are left as they are). */
export async function recordMembers(manager: EntityManager, targetId: string, groupId: string, memberIds: readonly string[]): Promise<void> {
  for (let i = 0; i < memberIds.length; i += CHUNK) {
    const chunk = memberIds.slice(i, i + CHUNK);
    await forgetMembers(manager, targetId, groupId, chunk);
    await insertValues(
      manager,
      'provisioning_members',
      ['target_id', 'group_id', 'member_id'],
      chunk.map((id) => [targetId, groupId, id]),
    );
  }
}

/** The target no longer lists these members. */
export async function forgetMembers(manager: EntityManager, targetId: string, groupId: string, memberIds: readonly string[]): Promise<void> {
  for (let i = 0; i < memberIds.length; i += CHUNK) {
    const chunk = memberIds.slice(i, i + CHUNK);
    await manager.query(`DELETE FROM provisioning_members WHERE target_id = ? AND group_id = ? AND member_id IN (${placeholders(chunk.length)})`, [
      targetId,
      groupId,
      ...chunk,
    ]);
  }
}

/** The group's record is exactly these members: after a PUT of the whole group, a creation, or a reconcile's read. */
export async function replaceMembers(manager: EntityManager, targetId: string, groupId: string, memberIds: readonly string[]): Promise<void> {
  await manager.query('DELETE FROM provisioning_members WHERE target_id = ? AND group_id = ?', [targetId, groupId]);
  for (let i = 0; i < memberIds.length; i += CHUNK)
    await insertValues(
      manager,
      'provisioning_members',
      ['target_id', 'group_id', 'member_id'],
      memberIds.slice(i, i + CHUNK).map((id) => [targetId, groupId, id]),
    );
}
