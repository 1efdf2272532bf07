import type { EntityManager } from 'typeorm';

export interface GroupSummary {
  id: string;
  displayName: string;
  externalId: string | null;
  memberCount: number;
}

/** The organization's groups by display name, each with its member count (counted on the members' primary key). */
export async function groupSummaries(manager: EntityManager, orgId: string): Promise<GroupSummary[]> {
  const rows: { id: string; display_name: string; external_id: string | null; member_count: number | string }[] = await manager.query(
    `SELECT g.id, g.display_name, g.external_id, (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS member_count
       FROM org_groups g WHERE g.org_id = ? ORDER BY g.display_name_key, g.id`,
    [orgId],
  );
  return rows.map((r) => ({ id: r.id, displayName: r.display_name, externalId: r.external_id, memberCount: Number(r.member_count) }));
}

/** Leaves every group of the user, inside the caller's transaction; the ids of the groups it left. */
export async function leaveAllGroupsIn(manager: EntityManager, userId: string): Promise<string[]> {
  const rows: { group_id: string }[] = await manager.query('SELECT group_id FROM group_members WHERE user_id = ?', [userId]);
  if (rows.length > 0) await manager.query('DELETE FROM group_members WHERE user_id = ?', [userId]);
  return rows.map((r) => r.group_id);
}
