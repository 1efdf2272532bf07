import type { EntityManager } from 'typeorm';
import { insertValues } from '../../common/database/insert-values.js';
import { placeholders } from '../../common/database/placeholders.js';

export interface GroupSummary {
  id: string;
  displayName: string;
  externalId: string | null;
  memberCount: number;
}

/** Ids per statement: well below SQLite's bound-parameter limit. */
const CHUNK = 5_000;

/** The organization's groups by display name, each with its member count (counted on the members' primary key). */
export async function groupSummaries(manager: EntityManager, orgId: string): Promise<GroupSummary[]> {
  const rows: { id: string; display_name: string; external_id: string | null; member_count: number | string }[] = await manager.query(
    `SELECT g.id, g.display_name, g.external_id, (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS member_count
       FROM org_groups g WHERE g.org_id = ? ORDER BY g.display_name_key, g.id`,
    [orgId],
  );
  return rows.map((r) => ({ id: r.id, displayName: r.display_name, externalId: r.external_id, memberCount: Number(r.member_count) }));
}

export async function touchGroup(manager: EntityManager, groupId: string, at: Date): Promise<void> {
  await manager.query('UPDATE org_groups SET changed_at = ? WHERE id = ?', [at.getTime(), groupId]);
}

/** Which of `userIds` are users of the organization. */
export async function usersOfOrganization(manager: EntityManager, orgId: string, userIds: readonly string[]): Promise<Set<string>> {
  return selectIds(manager, 'SELECT id FROM users WHERE org_id = ? AND id IN', [orgId], userIds);
}

/** Which of `userIds` are members of the group. */
export async function membersAmong(manager: EntityManager, groupId: string, userIds: readonly string[]): Promise<Set<string>> {
  return selectIds(manager, 'SELECT user_id AS id FROM group_members WHERE group_id = ? AND user_id IN', [groupId], userIds);
}

export async function allMembers(manager: EntityManager, groupId: string): Promise<string[]> {
  const rows: { user_id: string }[] = await manager.query('SELECT user_id FROM group_members WHERE group_id = ?', [groupId]);
  return rows.map((r) => r.user_id);
}

export async function insertMembers(manager: EntityManager, groupId: string, userIds: readonly string[], at: Date): Promise<void> {
  await insertValues(manager, 'group_members', ['group_id', 'user_id', 'added_at'], userIds.map((id) => [groupId, id, at.getTime()]));
}

export async function deleteMembers(manager: EntityManager, groupId: string, userIds: readonly string[]): Promise<void> {
  for (let i = 0; i < userIds.length; i += CHUNK) {
    const chunk = userIds.slice(i, i + CHUNK);
    await manager.query(`DELETE FROM group_members WHERE group_id = ? AND user_id IN (${placeholders(chunk.length)})`, [groupId, ...chunk]);
  }
}

/** Leaves every group of the user, inside the caller's transaction; the ids of the groups it left. */
export async function leaveAllGroupsIn(manager: EntityManager, userId: string): Promise<string[]> {
  const rows: { group_id: string }[] = await manager.query('SELECT group_id FROM group_members WHERE user_id = ?', [userId]);
  if (rows.length > 0) await manager.query('DELETE FROM group_members WHERE user_id = ?', [userId]);
  return rows.map((r) => r.group_id);
}

async function selectIds(manager: EntityManager, head: string, leading: unknown[], ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const rows: { id: string }[] = await manager.query(`${head} (${placeholders(chunk.length)})`, [...leading, ...chunk]);
    for (const row of rows) found.add(row.id);
  }
  return found;
}
