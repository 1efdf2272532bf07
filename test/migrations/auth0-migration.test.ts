import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { SignInFlow } from '../oidc/support/second-factor.js';
import { portcullis } from './support/portcullis-command.js';
import { auth0Export, objectId } from './fixtures/auth0-export.js';
import type { Auth0Seed } from './fixtures/auth0-export.js';

async function written(svc: TestService): Promise<string> {
  const counts = [];
  for (const table of ['organizations', 'users', 'migrated_objects']) {
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`);
    counts.push(`${table}=${row.n}`);
  }
  const [events] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM events WHERE type NOT LIKE 'migration.%'`);
  return `${counts.join(' ')} events=${events.n}`;
}

/** Moving in from Auth0 (docs/migrating.md, "Auth0"): the user export and the hash export, ids kept as `sub`. */
describe('moving in from Auth0: the user export with its bcrypt hashes, the same sub and passwords', () => {
  const svc = useService();
  let dir: string;
  let tokenFile: string;
  const seeds: Auth0Seed[] = [
    { userId: objectId(), email: 'ada@example.com', username: 'ada', password: 'ada-Old-Passw0rd', roles: ['admin'] },
    { userId: objectId(), email: 'Bea@Example.com', password: 'bea-Old-Passw0rd' },
    { userId: objectId(), email: 'cy@example.com', password: 'cy-Old-Passw0rd', blocked: true },
    { userId: 'google-oauth2|1077', email: 'dee@example.com' },
  ];
  let files: { users: string; hashes: string };
  let hashList: string[];
  let orgId: string;
  let primaryDomain: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-auth0-'));
    tokenFile = join(svc.dataDir, 'admin.pat');
    const made = await auth0Export(seeds);
    hashList = made.hashList;
    files = { users: join(dir, 'users.ndjson'), hashes: join(dir, 'hashes.ndjson') };
    writeFileSync(files.users, made.users);
    writeFileSync(files.hashes, made.hashes);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('`portcullis import auth0` brings every user in with its Auth0 id, listing roles and social links as unmapped', async () => {
    const org = await createOrg(svc);
    orgId = org.id;
    primaryDomain = org.primaryDomain;
    const reportFile = join(dir, 'report.json');
    const args = ['import', 'auth0', files.users, '--hashes', files.hashes, '--org', orgId, '--batch', '3', '--url', svc.url, '--token-file', tokenFile];
    const run = await portcullis([...args, '--report', reportFile]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /^user +4 +0 +0 +0$/m);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    const paths = report.unmapped.map((u: { path: string }) => u.path);
    assert.ok(paths.includes('[0].app_metadata.roles'), JSON.stringify(paths));
    assert.ok(paths.includes('[3].identities[0]'), 'the social link, numbered in the whole file (second part)');

    const rows: { id: string; user_name: string; state: string; pw: string | null }[] = await svc.dataSource.query(
      'SELECT id, user_name, state, password_hash AS pw FROM users WHERE org_id = ? ORDER BY user_name',
      [orgId],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.equal(byId.get(`auth0|${seeds[0].userId}`)?.user_name, 'ada');
    assert.equal(byId.get(`auth0|${seeds[1].userId}`)?.user_name, 'Bea@Example.com', 'no username: the address is the userName');
    assert.equal(byId.get(`auth0|${seeds[2].userId}`)?.state, 'inactive', 'blocked');
    assert.equal(byId.get('google-oauth2|1077')?.pw, null, 'a social user has no password');

    const events = await svc.dataSource.query(`SELECT payload FROM events WHERE payload LIKE ?`, [`%${report.migrationIds[0]}%`]);
    assert.ok(events.length >= 3);
    const everything = JSON.stringify([report, events]) + run.stdout + run.stderr;
    for (const hash of hashList) assert.ok(!everything.includes(hash.slice(7, 29)), 'no hash or salt in the report or an event');
    for (const seed of seeds) if (seed.password) assert.ok(!everything.includes(seed.password));

    const before = await written(svc);
    const again = await portcullis(args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^user +0 +0 +4 +0$/m);
    assert.equal(await written(svc), before, 'a second run changes nothing');
  });

  it('users sign in with their Auth0 password, and the app sees the Auth0 user_id as sub', async () => {
    const project = await createProject(svc, orgId);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    for (const seed of seeds.slice(0, 2)) {
      const flow = new SignInFlow(svc, app, 'http://127.0.0.1:65530/cb');
      flow.client.declinesMfaOffer = true;
      await flow.authorize();
      const loginName = `${seed.username ?? seed.email}@${primaryDomain}`;
      const wrong = await flow.password(loginName, `${seed.password}x`);
      assert.notEqual(wrong.status, 303, 'a wrong password is refused');
      const done = await flow.password(loginName, seed.password!);
      const { claims } = await flow.tokens(done);
      assert.equal(claims.sub, `auth0|${seed.userId}`);
    }
  });

  it('bad input is a 400 naming its path, and writes nothing', async () => {
    const before = await written(svc);
    const user = { user_id: `auth0|${objectId()}`, email: `${unique('x')}@example.com` };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['not an array', { source: 'auth0', document: { users: [user] } }, /document: must be an array/],
      ['a user without an id', { source: 'auth0', document: [user, { email: 'y@example.com' }] }, /document\[1\]\.user_id: is required/],
      ['a user without a name', { source: 'auth0', document: [{ user_id: 'auth0|1' }] }, /document\[0\]\.username: is required/],
      [
        'a hash that is not bcrypt',
        { source: 'auth0', document: [user], passwordHashes: [{ _id: { $oid: 'abc' }, passwordHash: 'plain-text' }] },
        /passwordHashes\[0\]\.passwordHash: must be a bcrypt hash/,
      ],
      ['hashes for keycloak', { source: 'keycloak', document: { realm: 'r' }, passwordHashes: [] }, /passwordHashes: is for auth0/],
    ];
    for (const [what, body, message] of cases) {
      const res = await svc.api('POST', '/admin/v1/migrations', { token: svc.adminToken, body: { ...body, orgId } });
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.match(res.text, message, what);
      assert.ok(!res.text.includes('plain-text'), 'the refused value is not echoed');
    }
    const badLine = join(dir, 'bad.ndjson');
    writeFileSync(badLine, `${JSON.stringify(user)}\nnot json\n`);
    const run = await portcullis(['import', 'auth0', badLine, '--org', orgId, '--url', svc.url, '--token-file', tokenFile]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /bad\.ndjson line 2 is not JSON/);
    assert.equal(await written(svc), before);
  });
});
