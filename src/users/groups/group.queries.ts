import type { EntityManager } from 'typeorm';
import { insertValues } from '../../common/database/insert-values.js';
import { positional } from '../../common/database/named-parameters.js';
import { literalLimit, placeholders } from '../../common/database/placeholders.js';
import { readRows } from '../../common/database/statements.js';
import type { Statements } from '../../common/database/statements.js';
import type { Page } from '../../common/database/page.js';

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

/** Each of `userIds` that is a user of the organization, and whether it is a member of the group: one read. */
export async function candidates(manager: EntityManager, orgId: string, groupId: string, userIds: readonly string[]): Promise<Map<string, boolean>> {
  const found = new Map<string, boolean>();
  const unique = [...new Set(userIds)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const rows: { id: string; member: string | null }[] = await manager.query(
      `SELECT u.id, m.user_id AS member FROM users u LEFT JOIN group_members m ON m.group_id = ? AND m.user_id = u.id
        WHERE u.org_id = ? AND u.id IN (${placeholders(chunk.length)})`,
      [groupId, orgId, ...chunk],
    );
    for (const row of rows) found.set(row.id, row.member !== null);
  }
  return found;
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
  await insertValues(
    manager,
    'group_members',
    ['group_id', 'user_id', 'added_at'],
    userIds.map((id) => [groupId, id, at.getTime()]),
  );
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

/** Columns of `org_groups g` a SCIM filter or sort may name, for the SCIM surface's compiler. */
export const GROUP_COLUMNS = {
  id: 'g.id',
  externalId: 'g.external_id',
  /** `foldCase(display_name)`: compare a folded value with it. */
  displayNameKey: 'g.display_name_key',
  createdAt: 'g.created_at',
  changedAt: 'g.changed_at',
} as const;

/** A condition on one member row `m` (its column `m.user_id`) of group `g`, as an EXISTS over the members. */
export function memberExists(condition: string): string {
  return `EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND ${condition})`;
}
export const MEMBER_USER_ID = 'm.user_id';

export interface GroupRow {
  id: string;
  orgId: string;
  displayName: string;
  externalId: string | null;
  createdAt: Date;
  changedAt: Date;
}

export interface GroupSearch {
  /** A condition over `g` with named parameters, or none. */
  where?: { sql: string; params: Record<string, unknown> };
  /** Column of GROUP_COLUMNS; ties broken by id. */
  orderBy: string;
  descending: boolean;
  /** 1-based. */
  startIndex: number;
  count: number;
}

/**
 * A page of the organization's groups and the number of all that match. Past the first row, a deferred
 * join takes the page's ids from the index alone, so the skipped rows are never read; the total needs its
 * own count only when the page does not reveal it (a full page, or one past the end). `reads` runs the
 * statements: the data source's, or bounded ones for a costly filter (common/database/bounded-reads.ts).
 */
export async function searchGroups(reads: Statements, orgId: string, search: GroupSearch): Promise<{ total: number; groups: GroupRow[] }> {
  const where = `g.org_id = :orgId${search.where ? ` AND ${search.where.sql}` : ''}`;
  const named = { ...search.where?.params, orgId, offset: search.startIndex - 1 };
  const direction = search.descending ? 'DESC' : 'ASC';
  const order = `${search.orderBy} ${direction}, g.id ${direction}`;
  const sql =
    search.startIndex === 1
      ? `SELECT g.* FROM org_groups g WHERE ${where} ORDER BY ${order} LIMIT ${literalLimit(search.count)}`
      : `SELECT g.* FROM org_groups g JOIN (SELECT g.id FROM org_groups g WHERE ${where} ORDER BY ${order} LIMIT ${literalLimit(search.count)} OFFSET :offset) p ON p.id = g.id ORDER BY ${order}`;
  const page = positional(sql, named);
  const groups = (search.count === 0 ? [] : await reads.rows<Record<string, unknown>>(page.sql, page.values)).map(groupRow);
  if (groups.length < search.count && (groups.length > 0 || search.startIndex === 1)) return { total: search.startIndex - 1 + groups.length, groups };
  const counted = positional(`SELECT COUNT(*) AS n FROM org_groups g WHERE ${where}`, named);
  const [total] = await reads.rows<{ n: number | string }>(counted.sql, counted.values);
  return { total: Number(total.n), groups };
}

export interface GroupKeysetSearch {
  /** A condition over `g` with named parameters, or none. */
  where?: { sql: string; params: Record<string, unknown> };
  /** Column of GROUP_COLUMNS; ties broken by id. */
  orderBy: string;
  descending: boolean;
  /** Where the page starts (a keyset condition over `g`), or none for the first page. */
  after?: { sql: string; params: Record<string, unknown> };
  limit: number;
}

/**
 * A page of the organization's groups from a position in the order (keyset paging): it reads from the
 * (org, key, id) index where the position is, however deep, with each row's raw sort value (`sortValue`) to
 * name the next position.
 */
export async function groupKeysetPage(reads: Statements, orgId: string, search: GroupKeysetSearch): Promise<{ group: GroupRow; sortValue: unknown }[]> {
  const conditions = [`g.org_id = :orgId`, search.where?.sql, search.after?.sql].filter(Boolean).join(' AND ');
  const direction = search.descending ? 'DESC' : 'ASC';
  const order = `${search.orderBy} ${direction}, g.id ${direction}`;
  // From a position, the ids first (the index alone), as human-users.ts's humanUserPage does for the same reason.
  const sql = search.after
    ? `SELECT g.*, ${search.orderBy} AS sort_value FROM org_groups g JOIN (SELECT g.id FROM org_groups g WHERE ${conditions} ORDER BY ${order} LIMIT ${literalLimit(search.limit)}) p ON p.id = g.id ORDER BY ${order}`
    : `SELECT g.*, ${search.orderBy} AS sort_value FROM org_groups g WHERE ${conditions} ORDER BY ${order} LIMIT ${literalLimit(search.limit)}`;
  const page = positional(sql, { ...search.where?.params, ...search.after?.params, orgId });
  const rows = search.limit === 0 ? [] : await reads.rows<Record<string, unknown>>(page.sql, page.values);
  return rows.map((row) => ({ group: groupRow(row), sortValue: row.sort_value }));
}

/** How many of the organization's groups match the condition. */
export async function countGroups(reads: Statements, orgId: string, where?: { sql: string; params: Record<string, unknown> }): Promise<number> {
  const counted = positional(`SELECT COUNT(*) AS n FROM org_groups g WHERE g.org_id = :orgId${where ? ` AND ${where.sql}` : ''}`, { ...where?.params, orgId });
  const [total] = await reads.rows<{ n: number | string }>(counted.sql, counted.values);
  return Number(total.n);
}

export async function findGroup(manager: EntityManager, orgId: string, groupId: string): Promise<GroupRow | undefined> {
  const [row]: Record<string, unknown>[] = await manager.query('SELECT g.* FROM org_groups g WHERE g.id = ? AND g.org_id = ?', [groupId, orgId]);
  return row ? groupRow(row) : undefined;
}

export interface MemberRow {
  groupId: string;
  userId: string;
  /** The user's display name, else its user name. */
  display: string;
}

/** The members of each group, in the order they joined. */
export async function membersOf(manager: EntityManager, groupIds: readonly string[]): Promise<MemberRow[]> {
  const result: MemberRow[] = [];
  for (let i = 0; i < groupIds.length; i += CHUNK) {
    const chunk = groupIds.slice(i, i + CHUNK);
    const rows: { group_id: string; user_id: string; display: string }[] = await manager.query(
      `SELECT m.group_id, m.user_id, COALESCE(u.display_name, u.user_name) AS display
         FROM group_members m JOIN users u ON u.id = m.user_id
        WHERE m.group_id IN (${placeholders(chunk.length)}) ORDER BY m.added_at, m.user_id`,
      chunk,
    );
    for (const r of rows) result.push({ groupId: r.group_id, userId: r.user_id, display: r.display });
  }
  return result;
}

export interface GroupMember {
  userId: string;
  userName: string;
  displayName: string | null;
}

/**
 * One page of a group's members by user name; with `pattern` (`likeContains` of a `?query=`,
 * src/common/database/name-search.ts), those whose search text (names and e-mail) contains it. A group of 5,000 is
 * read a page at a time, on the members' primary key.
 */
export async function pageOfMembers(
  manager: EntityManager,
  groupId: string,
  pattern: string | undefined,
  page: Page,
): Promise<{ total: number; members: GroupMember[] }> {
  const from = `FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = ?${pattern ? " AND u.search_text LIKE ? ESCAPE '!'" : ''}`;
  const params = pattern ? [groupId, pattern] : [groupId];
  const [counted]: { total: number | string }[] = await manager.query(`SELECT COUNT(*) AS total ${from}`, params);
  const rows: { user_id: string; user_name: string; display_name: string | null }[] = await manager.query(
    `SELECT m.user_id, u.user_name, u.display_name ${from} ORDER BY u.user_name, m.user_id LIMIT ${literalLimit(page.limit)} OFFSET ${literalLimit(page.offset)}`,
    params,
  );
  return { total: Number(counted.total), members: rows.map((r) => ({ userId: r.user_id, userName: r.user_name, displayName: r.display_name })) };
}

export interface UserGroup {
  id: string;
  displayName: string;
}

/** Each user's groups by display name: one query on the members' user index for a page of users. */
export async function groupsOfUsers(manager: EntityManager, userIds: readonly string[]): Promise<Map<string, UserGroup[]>> {
  const result = new Map<string, UserGroup[]>();
  for (let i = 0; i < userIds.length; i += CHUNK) {
    const chunk = userIds.slice(i, i + CHUNK);
    const rows = await readRows<{ user_id: string; id: string; display_name: string }>(
      manager,
      `SELECT m.user_id, g.id, g.display_name FROM group_members m JOIN org_groups g ON g.id = m.group_id
        WHERE m.user_id IN (${placeholders(chunk.length)}) ORDER BY g.display_name_key, g.id`,
      chunk,
    );
    for (const r of rows) {
      const list = result.get(r.user_id) ?? [];
      list.push({ id: r.id, displayName: r.display_name });
      result.set(r.user_id, list);
    }
  }
  return result;
}

/** The display names of the user's groups, sorted: the `groups` claim. */
export async function groupNamesOf(manager: EntityManager, userId: string): Promise<string[]> {
  const rows: { display_name: string }[] = await manager.query(
    'SELECT g.display_name FROM group_members m JOIN org_groups g ON g.id = m.group_id WHERE m.user_id = ? ORDER BY g.display_name_key',
    [userId],
  );
  return rows.map((r) => r.display_name);
}

function groupRow(row: Record<string, unknown>): GroupRow {
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    displayName: String(row.display_name),
    externalId: row.external_id == null ? null : String(row.external_id),
    createdAt: new Date(Number(row.created_at)),
    changedAt: new Date(Number(row.changed_at)),
  };
}
