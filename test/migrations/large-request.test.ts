import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { keycloakClientSecret, keycloakRealm } from './support/keycloak-realm.js';

interface Report {
  migrationId: string;
  counts: Record<string, { created: number; updated: number; unchanged: number; failed: number }>;
  failures: { kind: string; sourceId: string; message: string }[];
  unmapped: { path: string; reason: string }[];
  organization: { id: string };
}

/** Users the service plans and writes at a time (docs/migrating.md, "Large exports"). */
const PART = 5_000;

async function count(svc: TestService, sql: string, ...params: unknown[]): Promise<number> {
  const [row] = await svc.dataSource.query(sql, params);
  return Number(row.n);
}

/**
 * One request larger than a part (docs/migrating.md, "Large exports"): the body goes to a file of its own, every part
 * is checked before the first is written, and the parts come back as one report.
 */
describe('moving in: one request of more users than a part', () => {
  // The service's temporary directory, to see the body's file go when the answer is sent.
  const spoolDir = mkdtempSync(join(tmpdir(), 'portcullis-spool-'));
  const svc = useService({ TMPDIR: spoolDir });
  let realm: Record<string, unknown>;
  let users: Record<string, unknown>[];
  after(() => rmSync(spoolDir, { recursive: true, force: true }));

  before(async () => {
    realm = await keycloakRealm(
      unique('big').toLowerCase(),
      [{ username: 'first', password: 'first-Old-Passw0rd', hashing: 'pbkdf2-sha256', groups: ['/Sales'] }],
      keycloakClientSecret(),
    );
    const model = (realm.users as Record<string, unknown>[])[0];
    // Keycloak's users, each with the model's credential (hashes are stored as given, so one computation serves all).
    users = [model];
    for (let i = 1; i < PART + 3; i++) {
      users.push({ ...model, id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, username: `user${i}`, email: `user${i}@example.com` });
    }
    users[PART + 1] = { ...users[PART + 1], attributes: { department: ['Finance'] } };
    realm.users = users;
  });

  const post = (body: unknown) => svc.api<Report>('POST', '/admin/v1/migrations', { token: svc.adminToken, body });
  const sales = () =>
    count(svc, "SELECT COUNT(*) AS n FROM group_members m JOIN org_groups g ON g.id = m.group_id WHERE g.display_name = '/Sales' AND g.org_id = ?", orgId);
  let orgId: string;

  it('a fault in the last user, a part away from the first, is a 400 naming it, and nothing is written', async () => {
    const usersBefore = await count(svc, 'SELECT COUNT(*) AS n FROM users');
    const broken = users.map((u) => ({ ...u }));
    delete broken[PART + 2].username;
    const res = await post({ source: 'keycloak', document: { ...realm, users: broken } });
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.match(res.text, new RegExp(`document\\.users\\[${PART + 2}\\]\\.username: is required`));
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM users'), usersBefore);
    assert.equal(await count(svc, "SELECT COUNT(*) AS n FROM events WHERE type = 'migration.started'"), 0);
    assert.deepEqual(readdirSync(spoolDir), [], 'the body’s file is removed');
  });

  it('brings every part in as one run with one report; a second run changes nothing', async () => {
    // The groups a realm of one user makes (realm groups and `role:` groups), by a dry run.
    const small = await post({ source: 'keycloak', document: { ...realm, users: users.slice(0, 1) }, options: { dryRun: true } });
    assert.equal(small.status, 200, small.text.slice(0, 300));
    const groups = small.body.counts.group.created;
    assert.ok(groups >= 3, `${groups} groups`);
    const runsBefore = await count(svc, 'SELECT COUNT(*) AS n FROM migration_runs');
    const first = await post({ source: 'keycloak', document: realm });
    assert.equal(first.status, 200, first.text.slice(0, 300));
    orgId = first.body.organization.id;
    assert.deepEqual(first.body.counts.user, { created: PART + 3, updated: 0, unchanged: 0, failed: 0 });
    // The groups are in every part: counted as the first part found them, with the members of every part.
    assert.deepEqual(first.body.counts.group, { created: groups, updated: 0, unchanged: 0, failed: 0 });
    assert.equal(await sales(), PART + 3);
    // A user's path is its place in the whole document, not in its part.
    assert.ok(
      first.body.unmapped.some((u) => u.path === `users[${PART + 1}].attributes.department`),
      JSON.stringify(first.body.unmapped.filter((u) => u.path.includes('department'))),
    );
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM migration_runs'), runsBefore + 1, 'one run for every part');
    const run = await svc.api<{ counts: Report['counts'] }>('GET', `/admin/v1/migrations/${first.body.migrationId}`, { token: svc.adminToken });
    assert.deepEqual(run.body.counts, first.body.counts);
    assert.deepEqual(readdirSync(spoolDir), [], 'the body’s file is removed');

    const again = await post({ source: 'keycloak', document: realm });
    assert.equal(again.status, 200, again.text.slice(0, 300));
    assert.deepEqual(again.body.counts.user, { created: 0, updated: 0, unchanged: PART + 3, failed: 0 });
    assert.deepEqual(again.body.counts.group, { created: 0, updated: 0, unchanged: groups, failed: 0 });
    assert.equal(await sales(), PART + 3);
  });
});
