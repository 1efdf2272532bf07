import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const PEER_TOKEN = 'peer-token-20k';
const SIZE = 20_000;
const LEAVING = 150;
const WAIT = 300_000;

/**
 * docs/provisioning.md, "Groups": a group of 20,000 members is pushed to an independent SCIM server (scimmy) from
 * the record of pushed memberships, never reading the remote group with its members (a read of it whole would not
 * fit the 1 MiB answer cap); 150 members leaving are two PATCHes of one `remove` per member (at most 100 operations
 * a PATCH). Setup only: the members are written straight to the tables and are already at the target (their
 * provisioning objects say so), since 20,000 user pushes are not what this tests.
 */
describe('provisioning: a group of 20,000 members', () => {
  const svc = useService({
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    PROVISIONING_RETRY_BASE_MS: '50',
    PROVISIONING_RETRY_WINDOW_MS: '600000',
    PROVISIONING_MEMBERS_PER_PATCH: '1000',
  });
  let peer: ScimmyTarget;
  let orgId: string;
  let groupId: string;
  let targetId: string;
  let userIds: string[];
  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const remoteGroup = () => peer.groups.find((g) => g.externalId === groupId);
  const remoteMembers = () => new Set(((remoteGroup()?.members ?? []) as { value: string }[]).map((m) => m.value));

  before(async () => {
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    const group = await api('POST', '/groups', { displayName: unique('everyone') });
    assert.equal(group.status, 201, group.text);
    groupId = group.body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
      enabled: false,
    });
    assert.equal(created.status, 201, created.text);
    targetId = created.body.id;
    const prefix = unique('big');
    userIds = await seedMembers(svc.dataSource, orgId, groupId, prefix, SIZE);
    const now = new Date().toISOString();
    for (const userId of userIds)
      peer.users.push({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        id: `r-${userId}`,
        externalId: userId,
        userName: userId,
        meta: { created: now },
      });
    await seedProvisioned(svc.dataSource, targetId, userIds);
  });
  after(async () => {
    await peer?.close();
  });

  it('is pushed in chunks from the record, without reading the remote group whole; members leaving are removed one operation each', async () => {
    const started = Date.now();
    assert.equal((await api('PATCH', `/provisioning/targets/${targetId}`, { enabled: true })).status, 200);
    await eventually('all 20,000 members at the target', async () => (remoteMembers().size === SIZE ? true : undefined), WAIT);
    const pushedIn = Date.now() - started;
    const groupRequests = () => peer.requests.filter((r) => r.path.includes('/Groups'));
    const reads = groupRequests().filter((r) => r.method === 'GET');
    assert.ok(
      reads.every((r) => /excludedAttributes=members|attributes=/.test(r.path)),
      `every read of a group leaves the members out: ${reads.map((r) => r.path).join(', ')}`,
    );
    assert.equal(groupRequests().filter((r) => r.method === 'PATCH').length, SIZE / 1000, 'one PATCH per 1000 members');
    const [recorded] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM provisioning_members WHERE target_id = ? AND group_id = ?', [targetId, groupId]);
    assert.equal(Number(recorded.n), SIZE, 'the record holds every pushed member');

    const before = groupRequests().length;
    const leaving = userIds.slice(0, LEAVING);
    for (const userId of leaving) assert.equal((await api('DELETE', `/groups/${groupId}/members/${userId}`)).status, 204);
    await eventually('150 members gone at the target', async () => (remoteMembers().size === SIZE - LEAVING ? true : undefined), WAIT);
    const members = remoteMembers();
    assert.ok(
      leaving.every((userId) => !members.has(`r-${userId}`)),
      'the ones who left are gone',
    );
    const patches = groupRequests()
      .slice(before)
      .filter((r) => r.method === 'PATCH');
    // Several pushes may share the 150 (the group is marked again as the events arrive); never more than 100 a PATCH.
    assert.ok(patches.length >= 2, `150 removals need at least two PATCHes of at most 100 operations, saw ${patches.length}`);
    console.log(`# 20,000-member group pushed to scimmy in ${pushedIn} ms; ${LEAVING} removals in ${patches.length} PATCH(es)`);
  });
});

/**
 * `count` people of the organization, members of the group, written straight to the tables (setup only, as in
 * test/scim/scim-filter-cost.test.ts); times are copied from the instance's first user's row.
 */
async function seedMembers(dataSource: DataSource, orgId: string, groupId: string, prefix: string, count: number): Promise<string[]> {
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

/** The people are already at the target, by the remote ids the test's store gave them (`r-<id>`). */
async function seedProvisioned(dataSource: DataSource, targetId: string, userIds: readonly string[]): Promise<void> {
  for (let i = 0; i < userIds.length; i += 2000) {
    const chunk = userIds.slice(i, i + 2000);
    await dataSource.query(
      `INSERT INTO provisioning_objects (target_id, kind, local_id, remote_id, status, dirty_position, attempts, next_attempt_at, pushed_at) VALUES ${chunk.map(() => "(?, 'user', ?, ?, 'provisioned', NULL, 0, 0, 0)").join(', ')}`,
      chunk.flatMap((id) => [targetId, id, `r-${id}`]),
    );
  }
}
