import type { DataSource } from 'typeorm';

/** Setup for the large-group provisioning tests: people and their provisioning objects written straight to the tables. */

/**
 * `count` people of the organization, members of the group, written straight to the tables (setup only, as in
 * test/scim/scim-filter-cost.test.ts); times are copied from the instance's first user's row.
 */
export async function seedMembers(dataSource: DataSource, orgId: string, groupId: string, prefix: string, count: number): Promise<string[]> {
  const cat = (...parts: string[]) => (dataSource.options.type === 'better-sqlite3' ? parts.join(' || ') : `CONCAT(${parts.join(', ')})`);
  const digits =
    'SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9';
  const numbers = `SELECT a.n + 10 * b.n + 100 * c.n + 1000 * d.n + 10000 * e.n AS x FROM (${digits}) a, (${digits}) b, (${digits}) c, (${digits}) d, (${digits}) e`;
  await dataSource.query(
    `INSERT INTO users (id, org_id, type, user_name, user_name_lower, state, email_verified, phone_verified, password_change_required, failed_password_checks, version, created_at, changed_at)
     SELECT ${cat('?', 'x')}, ?, 'human', ${cat('?', 'x')}, ${cat('?', 'x')}, 'active', 0, 0, 0, 0, 1, t.created_at, t.changed_at
     FROM (${numbers}) s, (SELECT created_at, changed_at FROM users ORDER BY created_at LIMIT 1) t WHERE x < ?`,
    [`${prefix}-id-`, orgId, `${prefix}-`, `${prefix.toLowerCase()}-`, count],
  );
  await dataSource.query(`INSERT INTO group_members (group_id, user_id, added_at) SELECT ?, id, 0 FROM users WHERE org_id = ? AND id LIKE ?`, [
    groupId,
    orgId,
    `${prefix}-id-%`,
  ]);
  const rows: { id: string }[] = await dataSource.query('SELECT id FROM users WHERE org_id = ? AND id LIKE ? ORDER BY id', [orgId, `${prefix}-id-%`]);
  return rows.map((r) => r.id);
}

/** The people are already at the target, by the remote ids the test's store gave them (remoteIdOf). */
export async function seedProvisioned(dataSource: DataSource, targetId: string, userIds: readonly string[], remoteIdOf: (id: string) => string): Promise<void> {
  for (let i = 0; i < userIds.length; i += 2000) {
    const chunk = userIds.slice(i, i + 2000);
    await dataSource.query(
      `INSERT INTO provisioning_objects (target_id, kind, local_id, remote_id, status, dirty_position, attempts, next_attempt_at, pushed_at) VALUES ${chunk.map(() => "(?, 'user', ?, ?, 'provisioned', NULL, 0, 0, 0)").join(', ')}`,
      chunk.flatMap((id) => [targetId, id, remoteIdOf(id)]),
    );
  }
}
