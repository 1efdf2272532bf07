import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createTestDatabase } from '../support/database.js';
import { countRows, createOrg, useService } from '../support/fixtures.js';
import { runToExit, spawnService } from '../support/process.js';

const mode = (path: string) => statSync(path).mode & 0o777;

/** Secrets' responses are never cached, secrets at rest are the service user's alone, and a wrong master key is named. */
describe('secret hygiene', () => {
  const svc = useService();
  let orgId: string;
  let projectId: string;

  before(async () => {
    orgId = (await createOrg(svc)).id;
    projectId = (await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: svc.adminToken, body: { name: 'p' } })).body.id;
  });

  const oidcApp = (extra: Record<string, unknown> = {}) => ({
    name: 'app',
    redirectUris: ['https://rp.example/cb'],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'client_secret_basic',
    ...extra,
  });

  it('every response that carries a secret says Cache-Control: no-store and Pragma: no-cache', async () => {
    const post = (path: string, body: object = {}) => svc.api('POST', path, { token: svc.adminToken, body });
    const machine = await post(`/management/v1/orgs/${orgId}/users/machine`, { userName: 'robot', name: 'robot' });
    const keyed = await post(`/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, oidcApp({ authMethod: 'private_key_jwt' }));
    const responses = {
      'OIDC application (client secret)': await post(`/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, oidcApp()),
      'API application (client secret)': await post(`/management/v1/orgs/${orgId}/projects/${projectId}/apps/api`, {
        name: 'api',
        authMethod: 'client_secret_basic',
      }),
      'application key': await post(`/management/v1/orgs/${orgId}/projects/${projectId}/apps/${keyed.body.appId}/keys`),
      'machine secret': await post(`/management/v1/orgs/${orgId}/users/${machine.body.userId}/secret`),
      'machine key': await post(`/management/v1/orgs/${orgId}/users/${machine.body.userId}/keys`),
      'personal access token': await post(`/management/v1/orgs/${orgId}/users/${machine.body.userId}/pats`),
    };
    for (const [what, res] of Object.entries(responses)) {
      assert.equal(res.status, 201, `${what}: ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'no-store', what);
      assert.equal(res.headers.get('pragma'), 'no-cache', what);
    }
  });

  it('refuses redirect URIs with user information, backslashes or fragments, naming the field; nothing is created', async () => {
    const before = await countRows(svc, 'applications');
    const cases: [Record<string, unknown>, string][] = [
      [{ redirectUris: ['https://user:pass@rp.example/cb'] }, 'redirectUris.0'],
      [{ redirectUris: ['https://rp.example\\@evil.example/cb'] }, 'redirectUris.0'],
      [{ redirectUris: ['https://rp.example/cb#x'] }, 'redirectUris.0'],
      [{ postLogoutRedirectUris: ['https://rp.example/a\\b'] }, 'postLogoutRedirectUris.0'],
      [{ postLogoutRedirectUris: ['https://u@rp.example/out'] }, 'postLogoutRedirectUris.0'],
    ];
    for (const [extra, field] of cases) {
      const res = await svc.api('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, { token: svc.adminToken, body: oidcApp(extra) });
      assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        `${field} named: ${res.text}`,
      );
    }
    assert.equal(await countRows(svc, 'applications'), before);
  });

  it('DATA_DIR is 0700 and the database, its WAL files, the master key and the bootstrap secrets 0600', {
    skip: Boolean(process.env.TEST_DATABASE_URL) && 'SQLite files only',
  }, () => {
    assert.equal(mode(svc.dataDir), 0o700, 'DATA_DIR');
    for (const name of ['portcullis.sqlite', 'portcullis.sqlite-wal', 'portcullis.sqlite-shm', 'master.key', 'admin.pat', 'admin.password']) {
      const path = join(svc.dataDir, name);
      if (name.endsWith('-shm') && !existsSync(path)) continue;
      assert.equal(mode(path), 0o600, name);
    }
  });
});

describe('a wrong master key', () => {
  it('stops start-up with exit code 2 and one problem naming MASTER_KEY, no stack', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-master-key-'));
    try {
      const first = await spawnService({ DATA_DIR: dataDir, MASTER_KEY: randomBytes(32).toString('base64') });
      await first.stop();
      const { code, output } = await runToExit({ DATA_DIR: dataDir, MASTER_KEY: randomBytes(32).toString('base64'), PORT: '0' });
      assert.equal(code, 2, output);
      assert.match(output, /invalid configuration:\n {2}- MASTER_KEY does not decrypt the signing keys/);
      assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('two instances starting at once on one empty database: one serves, the other stops with exit code 2 naming MASTER_KEY', async () => {
    const dataDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'portcullis-master-key-')));
    const database = await createTestDatabase();
    // One database file for both on SQLite; each its own DATA_DIR, as two hosts would have.
    const databaseUrl = database.url ?? `sqlite:${join(dataDirs[0]!, 'shared.sqlite')}`;
    const started = await Promise.allSettled(
      dataDirs.map((dataDir) => spawnService({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, MASTER_KEY: randomBytes(32).toString('base64') })),
    );
    try {
      const serving = started.filter((s) => s.status === 'fulfilled');
      const refused = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      assert.equal(serving.length, 1, `exactly one serves: ${refused.join('\n')}`);
      assert.equal(refused.length, 1);
      assert.match(refused[0]!, /exit code 2\)/, refused[0]);
      assert.match(refused[0]!, /invalid configuration:\n {2}- MASTER_KEY does not decrypt the signing keys/);
      assert.doesNotMatch(refused[0]!, /\n\s+at /, 'no stack trace');
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.stop();
      await database.drop();
      for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
