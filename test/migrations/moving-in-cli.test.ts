import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { keycloakClientSecret, keycloakRealm } from './support/keycloak-realm.js';
import { portcullis } from './support/portcullis-command.js';
import type { SeedUser } from './support/keycloak-realm.js';

/** What a run may write: the organization's users, memberships and grants, and the id map. */
async function written(svc: TestService): Promise<string> {
  const counts = [];
  for (const table of ['organizations', 'users', 'group_members', 'project_grants', 'migrated_objects']) {
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`);
    counts.push(`${table}=${row.n}`);
  }
  return counts.join(' ');
}

/**
 * `portcullis import keycloak DIR` (docs/migrating.md, "The command"): a directory export read as a stream and sent in
 * parts of --batch users, every part checked before the first is sent.
 */
describe('portcullis import keycloak (CLI): a directory export in parts', () => {
  const svc = useService();
  let dir: string;
  let tokenFile: string;
  const seeds: SeedUser[] = ['ann', 'ben', 'cid', 'dot', 'eve', 'fay', 'gus'].map((username, i) => ({
    username,
    password: `${username}-Old-Passw0rd`,
    hashing: 'pbkdf2-sha256',
    groups: [i % 2 === 0 ? '/Engineering/Backend' : '/Sales'],
    ...(i % 3 === 0 ? { shopRoles: ['viewer'] } : {}),
  }));
  let realm: Record<string, unknown>;
  let exportDir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-moving-in-'));
    tokenFile = join(svc.dataDir, 'admin.pat');
    const name = unique('kc').toLowerCase();
    realm = await keycloakRealm(name, seeds, keycloakClientSecret());
    // kc.sh export --dir: the realm (here with the first two users) and users files of two and three users.
    exportDir = join(dir, 'export');
    mkdirSync(exportDir);
    const users = realm.users as Record<string, unknown>[];
    writeFileSync(join(exportDir, `${name}-realm.json`), JSON.stringify({ ...realm, users: users.slice(0, 2) }, null, 2));
    writeFileSync(join(exportDir, `${name}-users-0.json`), JSON.stringify({ realm: name, users: users.slice(2, 4) }));
    writeFileSync(join(exportDir, `${name}-users-1.json`), JSON.stringify({ realm: name, users: users.slice(4) }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const common = () => ['--url', svc.url, '--token-file', tokenFile, '--batch', '2'];

  it('a fault in the last part is exit code 2 naming its place in the whole export, and nothing is written', async () => {
    const before = await written(svc);
    const name = realm.realm as string;
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    const users = structuredClone(realm.users) as Record<string, unknown>[];
    delete users[6].username;
    writeFileSync(join(broken, `${name}-realm.json`), JSON.stringify({ ...realm, users: users.slice(0, 4) }));
    writeFileSync(join(broken, `${name}-users-0.json`), JSON.stringify({ realm: name, users: users.slice(4) }));
    const run = await portcullis(['import', 'keycloak', broken, ...common()]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /document\.users\[6\]\.username: is required/);

    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{"realm": "x", "users": [');
    const bad = await portcullis(['import', 'keycloak', notJson, ...common()]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /not valid JSON/);
    const missing = await portcullis(['import', 'keycloak', join(dir, 'nothing.json'), ...common()]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*ENOENT/);
    const unknown = await portcullis(['import', 'okta', notJson, ...common()]);
    assert.equal(unknown.code, 1, 'not a source: the users import, which cannot read it');
    assert.equal(await written(svc), before);
  });

  it('a dry run writes nothing; the real run brings every part in, memberships and grants across parts', async () => {
    const before = await written(svc);
    const dry = await portcullis(['import', 'keycloak', exportDir, '--dry-run', ...common()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^dry run: nothing written/m);
    assert.match(dry.stdout, /^user +7 +0 +0 +0$/m);
    assert.equal(await written(svc), before);

    const org = await createOrg(svc);
    const reportFile = join(dir, 'report.json');
    const run = await portcullis(['import', 'keycloak', exportDir, '--org', org.id, '--report', reportFile, ...common()]);
    assert.equal(run.code, 0, run.stderr);
    // The export's users: the seven people and the service account of its reporting client.
    assert.match(run.stderr, /8 of 8 users/);
    assert.match(run.stdout, /^user +7 +0 +0 +0$/m);
    assert.match(run.stdout, /^group +\d+ +0 +0 +0$/m);
    // Each user's client roles, directly and through groups and composites, in the part that holds the user.
    const grants = Number(/^grant +(\d+) +0 +0 +0$/m.exec(run.stdout)?.[1]);
    const [{ g }] = await svc.dataSource.query('SELECT COUNT(*) AS g FROM project_grants WHERE org_id = ?', [org.id]);
    assert.ok(grants >= 3 && grants === Number(g), `${grants} grants reported, ${g} written`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.equal(report.migrationIds.length, 4, 'seven users in parts of two');
    assert.deepEqual(report.counts.user, { created: 7, updated: 0, unchanged: 0, failed: 0 });
    assert.ok(
      report.unmapped.some((u: { path: string }) => u.path === 'authenticationFlows'),
      'realm fields listed once',
    );
    assert.equal(report.unmapped.filter((u: { path: string }) => u.path === 'authenticationFlows').length, 1);
    const text = JSON.stringify(report) + run.stdout + run.stderr;
    for (const user of realm.users as { credentials: { secretData: string }[] }[]) {
      // The service account has no credential of its own (its client's secret is checked below).
      if (user.credentials.length === 0) continue;
      const { value, salt } = JSON.parse(user.credentials[0].secretData) as { value: string; salt: string };
      assert.ok(!text.includes(value.slice(0, 16)) && !text.includes(salt.slice(0, 12)), 'no hash or salt in the report');
    }

    for (const client of realm.clients as { clientId: string; secret?: string }[])
      if (client.secret) assert.ok(!text.includes(client.secret), `no secret of ${client.clientId} in the report`);

    const ids = (realm.users as { id: string; username: string }[]).map((u) => u.id);
    const [{ n }] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND id IN (${ids.map(() => '?').join(',')})`, [
      org.id,
      ...ids,
    ]);
    assert.equal(Number(n), 7, 'every user kept its Keycloak id');
    const groups = await svc.api('GET', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken });
    const count = new Map<string, number>(groups.body.groups.map((g: { displayName: string; memberCount: number }) => [g.displayName, g.memberCount]));
    // Members of each part stay when the next part comes: ann, cid, eve, gus in Backend; ben, dot, fay in Sales.
    assert.equal(count.get('/Engineering/Backend'), 4);
    assert.equal(count.get('/Sales'), 3);

    const again = await portcullis(['import', 'keycloak', exportDir, '--org', org.id, ...common()]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^user +0 +0 +7 +0$/m);
    assert.match(again.stdout, new RegExp(`^grant +0 +0 +${grants} +0$`, 'm'));
    const state = await written(svc);
    const third = await portcullis(['import', 'keycloak', exportDir, '--org', org.id, ...common()]);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(await written(svc), state, 'a second run changes nothing');
  });

  it('a conflicting userName is one listed failure, exit code 1, and the rest goes in', async () => {
    const org = await createOrg(svc);
    const taken = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
      token: svc.adminToken,
      body: { userName: 'EVE', profile: { firstName: 'E', lastName: 'E' }, email: { email: 'other-eve@example.com', isEmailVerified: false } },
    });
    assert.equal(taken.status, 201, taken.text);
    const name = unique('kc2').toLowerCase();
    const file = join(dir, `${name}.json`);
    const other = await keycloakRealm(
      name,
      seeds.map((s) => ({ ...s, shopRoles: undefined })),
    );
    writeFileSync(file, JSON.stringify({ ...other, clients: [] }));
    const run = await portcullis(['import', 'keycloak', file, '--org', org.id, ...common()]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^user +6 +0 +0 +1$/m);
    assert.match(run.stdout, /^failed: user .*userName "eve" is taken/m);
  });
});
