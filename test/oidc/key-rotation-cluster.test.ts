import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { untilReady } from '../faults/faults.helpers.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import { clientCredentialsToken, onNewConnection } from './support/cluster-client.js';

/** An emergency rotation (POST /admin/v1/keys/rotate): every process signs with the new key within seconds. */
describe('key rotation across WORKERS=2 over one database', () => {
  let svc: ServiceProcess;
  let database: TestDatabase;
  let dataDir: string;
  let machine: { clientId: string; clientSecret: string };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-rotation-'));
    database = await createTestDatabase();
    const port = await freePort();
    const management = await freePort();
    svc = await spawnService(
      {
        DATA_DIR: dataDir,
        WORKERS: '2',
        MANAGEMENT_PORT: String(management),
        LOG_LEVEL: 'error',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      { port },
    );
    // The streak below must span both workers: on a loaded machine the second may start listening seconds after the
    // first answers /healthz (readiness is every worker listening, docs/operations.md).
    await untilReady(`http://127.0.0.1:${management}`, 'both workers listening', 60_000);
    const api = createClient(svc.url);
    // A first start of two workers: whichever answers /healthz first, the bootstrap's token file is there, whole.
    assert.ok(existsSync(join(dataDir, 'admin.pat')), 'admin.pat is written before any worker answers');
    const admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    assert.match(admin, /^\S{20,}$/);
    const org = await api('POST', '/admin/v1/orgs', { token: admin, body: { name: 'rotation' } });
    const user = await api('POST', `/management/v1/orgs/${org.body.id}/users/machine`, {
      token: admin,
      body: { userName: 'rotator', name: 'r', accessTokenType: 'jwt' },
    });
    machine = (await api('POST', `/management/v1/orgs/${org.body.id}/users/${user.body.userId}/secret`, { token: admin, body: {} })).body;
    await api('PUT', `/admin/v1/members/${user.body.userId}`, { token: admin, body: { roles: ['IAM_OWNER'] } });
  });
  after(async () => {
    await svc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const token = () => clientCredentialsToken(svc.url, machine);

  const workerOf = async () => (JSON.parse((await onNewConnection(`${svc.url}/healthz`)).text) as { worker: number }).worker;

  it('all workers sign with the rotated key within seconds; the old key stays published', async () => {
    const before = await token();
    const oldKid = decodeProtectedHeader(before).kid;
    const rotated = await createClient(svc.url)('POST', '/admin/v1/keys/rotate', { token: before, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    const newKid = rotated.body.activeKeyId;
    let streak = 0;
    const deadline = Date.now() + 45_000; // generous: the suite may share a loaded machine
    while (streak < 20 && Date.now() < deadline) {
      streak = decodeProtectedHeader(await token()).kid === newKid ? streak + 1 : 0;
      if (streak === 0) await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(streak, 20, 'twenty tokens in a row signed with the new key');
    // New connections do reach both workers (so the streak above spanned both).
    const workers = new Set<number>();
    for (let i = 0; i < 100 && workers.size < 2; i++) workers.add(await workerOf());
    assert.equal(workers.size, 2);
    for (let i = 0; i < 6; i++) {
      const jwks = (await (await fetch(`${svc.url}/oauth/v2/keys`, { keepalive: false })).json()) as { keys: { kid: string }[] };
      assert.ok(jwks.keys.some((k) => k.kid === oldKid) && jwks.keys.some((k) => k.kid === newKid));
      await jwtVerify(before, createLocalJWKSet(jwks as never));
    }
  });
});
