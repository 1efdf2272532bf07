import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { createDataSource } from '../../src/common/database/data-source.js';
import { NEXT_KEY_LEAD_MS, ROTATION_INTERVAL_MS } from '../../src/common/crypto/key-schedule/key-schedule.js';
import { SigningKeysService } from '../../src/oidc/keys/signing-keys.service.js';
import { eventually, untilReady } from '../faults/faults.helpers.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort, startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { clientCredentialsToken, publishedKeys } from './support/cluster-client.js';
import { createMachine, createProject } from './support/oidc-fixtures.js';
import type { MachineCredentials } from './support/cluster-client.js';
import { ENTITIES } from '../../src/entities.js';

const MINUTE = 60_000;
/** Each process looks for key changes this often (`KEY_POLL_MS`, 5 s in production): the schedule is seen within it. */
const KEY_POLL_MS = 200;

/**
 * Scheduled rotation (README, SIGNING_ALG) across WORKERS=2 over one database, as relying parties that
 * cache JWKS see it. Days pass without sleeping: every time of `signing_keys` is moved back, which is
 * what the schedule sees when its clock moves forward.
 */
describe('scheduled key rotation across WORKERS=2: the next key is published before it signs', () => {
  let svc: ServiceProcess;
  let database: TestDatabase;
  let dataDir: string;
  let port: number;
  let management: number;
  let keysTable: DataSource;
  let machine: MachineCredentials;

  const env = (extra: Record<string, string> = {}) => ({
    DATA_DIR: dataDir,
    WORKERS: '2',
    LOG_LEVEL: 'error',
    KEY_POLL_MS: String(KEY_POLL_MS),
    MANAGEMENT_PORT: String(management),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...extra,
  });

  /** The service, once both workers listen (`/readyz`): the streaks below speak of both. */
  const startBothWorkers = async (environment: Record<string, string>) => {
    const started = await spawnService(environment, { port });
    await untilReady(`http://127.0.0.1:${management}`, 'both workers listening', 60_000);
    return started;
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-schedule-'));
    database = await createTestDatabase();
    port = await freePort();
    management = await freePort();
    svc = await startBothWorkers(env());
    keysTable = createDataSource(loadConfig(env()).database, ENTITIES);
    await keysTable.initialize();
    const api = createClient(svc.url);
    const admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const org = await api('POST', '/admin/v1/orgs', { token: admin, body: { name: 'schedule' } });
    const user = await api('POST', `/management/v1/orgs/${org.body.id}/users/machine`, {
      token: admin,
      body: { userName: 'scheduled', name: 's', accessTokenType: 'jwt' },
    });
    machine = (await api('POST', `/management/v1/orgs/${org.body.id}/users/${user.body.userId}/secret`, { token: admin, body: {} })).body;
  });
  after(async () => {
    await keysTable?.destroy();
    await svc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The schedule's clock moves forward by `ms`. */
  async function advance(ms: number): Promise<void> {
    await keysTable.query(
      'UPDATE signing_keys SET created_at = created_at - ?, signs_from = signs_from - ?, retired_at = retired_at - ?, publish_until = publish_until - ?',
      [ms, ms, ms, ms],
    );
  }

  const token = () => clientCredentialsToken(svc.url, machine);
  const kidOf = async () => decodeProtectedHeader(await token()).kid!;
  const publishedKids = async () => (await publishedKeys(svc.url)).keys.map((k) => k.kid);

  /** `count` answers in a row, each over a new connection (so from both workers), all satisfy `check`. */
  async function streak(what: string, count: number, check: () => Promise<boolean>): Promise<void> {
    await eventually(
      what,
      async () => {
        for (let i = 0; i < count; i++) if (!(await check())) return undefined;
        return true;
      },
      30_000,
      250,
    );
  }

  it('publishes the next key a day ahead, signs with it after that day, and keeps the old key until its tokens expire', async () => {
    // Workers starting together on an empty database may each create a first key; within a poll they
    // agree on one, and the other stays published for the tokens it signed.
    const [{ id: oldKid }]: { id: string }[] = await keysTable.query(
      'SELECT id FROM signing_keys WHERE retired_at IS NULL ORDER BY signs_from DESC, created_at DESC LIMIT 1',
    );
    await streak('both workers sign with the newest key', 20, async () => (await kidOf()) === oldKid);
    const oldToken = await token();
    assert.equal(decodeProtectedHeader(oldToken).kid, oldKid);
    const before = (await publishedKids()).sort();
    assert.ok(before.includes(oldKid));

    await advance(ROTATION_INTERVAL_MS - NEXT_KEY_LEAD_MS + MINUTE);
    const nextKid = await eventually('a next key is published', async () => (await publishedKids()).find((kid) => !before.includes(kid)), 30_000, 250);
    await streak('both workers publish the old and the next key, and only one next key', 10, async () => {
      const kids = await publishedKids();
      return kids.includes(oldKid) && kids.includes(nextKid) && kids.filter((kid) => !before.includes(kid)).length === 1;
    });
    for (let i = 0; i < 20; i++) assert.equal(await kidOf(), oldKid, 'the old key still signs while the next one is only published');

    await advance(NEXT_KEY_LEAD_MS);
    await streak('both workers sign with the next key', 20, async () => (await kidOf()) === nextKid);
    const jwks = await publishedKeys(svc.url);
    assert.ok(
      jwks.keys.some((k) => k.kid === oldKid),
      'the old key stays published for its tokens',
    );
    await jwtVerify(oldToken, createLocalJWKSet(jwks as never));

    // Its tokens live at most the token lifetime past the switch; until then it is published.
    const lifetimeMs = (decodeJwt(oldToken).exp! - decodeJwt(oldToken).iat!) * 1000;
    await advance(lifetimeMs - MINUTE);
    // Nothing may change here, so no effect can be awaited: every answer over several polls of every worker keeps it.
    let answers = 0;
    for (const end = Date.now() + 5 * KEY_POLL_MS; Date.now() < end || answers < 6; answers++) {
      assert.ok((await publishedKids()).includes(oldKid), 'published until the last token it signed expires');
    }
    await advance(10 * MINUTE);
    await streak('both workers stop publishing the old key once its tokens expired', 10, async () => (await publishedKids()).join() === nextKid);
  });

  it('a new SIGNING_ALG on an existing database: the current key keeps signing, the new algorithm is published a day ahead', async () => {
    const rsaToken = await token();
    const rsaKid = decodeProtectedHeader(rsaToken).kid!;
    assert.equal(decodeProtectedHeader(rsaToken).alg, 'RS256');
    await svc.stop();
    svc = await startBothWorkers(env({ SIGNING_ALG: 'ES256' }));

    const published = await publishedKeys(svc.url);
    assert.deepEqual(published.keys.map((k) => k.alg).sort(), ['ES256', 'RS256']);
    const ecKid = published.keys.find((k) => k.alg === 'ES256')!.kid;
    const discovery = (await (await fetch(`${svc.url}/.well-known/openid-configuration`)).json()) as { id_token_signing_alg_values_supported: string[] };
    assert.deepEqual(discovery.id_token_signing_alg_values_supported.sort(), ['ES256', 'RS256'], 'what it signs now and from tomorrow');
    for (let i = 0; i < 10; i++) assert.equal(await kidOf(), rsaKid, 'the RS256 key keeps signing');

    await advance(NEXT_KEY_LEAD_MS);
    await streak('both workers sign with the ES256 key', 20, async () => (await kidOf()) === ecKid);
    const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.url));
    assert.equal((await jwtVerify(await token(), jwks, { algorithms: ['ES256'] })).protectedHeader.kid, ecKid);
    assert.equal((await jwtVerify(rsaToken, jwks, { algorithms: ['RS256'] })).protectedHeader.kid, rsaKid);
  });
});

/** Rotations by this process's own calls: one in-process service serves both (each start-up costs seconds). */
describe('rotation in one process', () => {
  let svc: TestService;
  let machine: MachineCredentials;
  before(async () => {
    svc = await startService({ KEY_POLL_MS: String(KEY_POLL_MS) });
    machine = await createMachine(svc, (await createProject(svc)).orgId, 'jwt');
  });
  after(() => svc?.close());
  const token = () => clientCredentialsToken(svc.url, machine);

  describe('emergency rotation (POST /admin/v1/keys/rotate) while a next key is scheduled', () => {
    it('signs with a new key at once and withdraws the scheduled key, which never signed', async () => {
      const oldKid = decodeProtectedHeader(await token()).kid!;
      // The schedule's check as the 90th day comes (its clock is a parameter).
      await svc.app.get(SigningKeysService).ensureSchedule(new Date(Date.now() + ROTATION_INTERVAL_MS));
      const scheduledKid = await eventually(
        'the next key is published',
        async () => (await publishedKeys(svc.url)).keys.map((k) => k.kid).find((kid) => kid !== oldKid),
        15_000,
        200,
      );
      assert.equal(decodeProtectedHeader(await token()).kid, oldKid);

      const rotated = await svc.api('POST', '/admin/v1/keys/rotate', { token: svc.adminToken, body: {} });
      assert.equal(rotated.status, 200, rotated.text);
      assert.deepEqual(Object.keys(rotated.body), ['activeKeyId']);
      const newKid: string = rotated.body.activeKeyId;
      assert.ok(newKid !== oldKid && newKid !== scheduledKid);
      assert.equal(decodeProtectedHeader(await token()).kid, newKid, 'the next token already carries the new kid');
      assert.deepEqual((await publishedKeys(svc.url)).keys.map((k) => k.kid).sort(), [newKid, oldKid].sort());
    });
  });

  describe('rotation by two processes at once', () => {
    it("keeps the other process's new key published although this one read its clock a moment before that key was created", async () => {
      const signing = decodeProtectedHeader(await clientCredentialsToken(svc.url, machine)).kid!;
      const newKid = await svc.app.get(SigningKeysService).rotate(null, new Date(Date.now() - 2_000));
      const kids = await eventually(
        'the new key is published',
        async () => {
          const published = (await publishedKeys(svc.url)).keys.map((k) => k.kid);
          return published.includes(newKid) ? published : undefined;
        },
        15_000,
        200,
      );
      assert.ok(kids.includes(signing), 'the key that signed stays published for its tokens');
    });
  });
});
