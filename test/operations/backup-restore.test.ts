import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import mysql from 'mysql2/promise';
import { createHuman, createMachine, postForm } from '../oidc/support/oidc-fixtures.js';
import { createOrg, unique } from '../support/fixtures.js';
import { runToExit } from '../support/process.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';

const run = promisify(execFile);
const MARIADB = process.env.TEST_DATABASE_URL;

/** mariadb/mariadb-dump options for the test server (TEST_DATABASE_URL). */
function connectionOptions(): string[] {
  const url = new URL(MARIADB!);
  return [
    '-h',
    url.hostname,
    '-P',
    url.port || '3306',
    '-u',
    decodeURIComponent(url.username || 'root'),
    ...(url.password ? [`-p${decodeURIComponent(url.password)}`] : []),
  ];
}

function databaseOf(svc: TestService): string {
  assert.equal(svc.config.database.type, 'mysql');
  return new URL(svc.config.database.url).pathname.slice(1);
}

async function accessToken(svc: TestService, machine: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
  assert.equal(res.status, 200, res.text);
  return res.body.access_token;
}

async function signingKeys(svc: TestService): Promise<JSONWebKeySet> {
  const discovery = await (await fetch(`${svc.url}/.well-known/openid-configuration`)).json();
  return (await fetch(`${svc.url}${new URL(discovery.jwks_uri).pathname}`)).json();
}

/**
 * docs/operations.md, "Backup and restore": deploy/backup/*.sh run as written against a serving instance,
 * restored into a new data directory (and, on MariaDB, a new database) with the master key supplied apart.
 */
describe('operations: an online backup restores with its master key kept apart', () => {
  let svc: TestService;
  let restored: TestService | undefined;
  const dirs: string[] = [];
  const restoredDatabase = `portcullis_restore_${unique('db').slice(3)}`;
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-backup-'));
    dirs.push(dir);
    return dir;
  };

  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await restored?.close();
    await svc?.close();
    if (MARIADB) {
      const url = new URL(MARIADB);
      const admin = await mysql.createConnection({
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username || 'root'),
        password: decodeURIComponent(url.password),
      });
      await admin.query(`DROP DATABASE IF EXISTS \`${restoredDatabase}\``);
      await admin.end();
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const restoredUrl = () => {
    const url = new URL(MARIADB!);
    url.pathname = `/${restoredDatabase}`;
    return url.toString();
  };

  /** The restore recipe for this database kind; returns what the restored service needs besides its master key. */
  async function restore(backup: string): Promise<{ dataDir: string; env: Record<string, string> }> {
    const dataDir = scratch();
    if (!MARIADB) {
      await run('deploy/backup/sqlite-restore.sh', [backup, dataDir]);
      return { dataDir, env: { DATA_DIR: dataDir } };
    }
    return { dataDir, env: { DATA_DIR: dataDir, DATABASE_URL: restoredUrl() } };
  }

  it('taken while the service writes, it restores the users, the signing keys and the secrets', async () => {
    const org = await createOrg(svc);
    const machine = await createMachine(svc, org.id, 'jwt');
    const before = await Promise.all([createHuman(svc, org.id), createHuman(svc, org.id), createHuman(svc, org.id)]);
    const tokenBefore = await accessToken(svc, machine);

    // Writes go on while the backup runs: the service is in this process, the backup a child process.
    let writing = true;
    const writer = (async () => {
      let written = 0;
      while (writing) {
        await createHuman(svc, org.id);
        written++;
      }
      return written;
    })();
    const backup = join(scratch(), MARIADB ? 'portcullis.sql' : 'portcullis.sqlite');
    try {
      if (MARIADB) await run('deploy/backup/mariadb-backup.sh', [backup, databaseOf(svc), ...connectionOptions()]);
      else await run('deploy/backup/sqlite-backup.sh', [svc.dataDir, backup]);
    } finally {
      writing = false;
    }
    assert.ok((await writer) > 0, 'the service wrote while the backup ran');
    if (MARIADB) await run('deploy/backup/mariadb-restore.sh', [backup, restoredDatabase, ...connectionOptions()]);

    const { dataDir, env } = await restore(backup);
    // The bootstrap token is a credential of the instance, kept with the master key, not in the backup.
    writeFileSync(join(dataDir, 'admin.pat'), readFileSync(join(svc.dataDir, 'admin.pat')), { mode: 0o600 });
    const masterKey = readFileSync(join(svc.dataDir, 'master.key'), 'utf8').trim();
    const service = await startService({ ...env, MASTER_KEY: masterKey });
    restored = service;

    for (const user of before) {
      const res = await service.api('GET', `/management/v1/orgs/${org.id}/users/${user.userId}`, { token: svc.adminToken });
      assert.equal(res.status, 200, `${user.userName}: ${res.text}`);
      assert.equal(res.body.userName, user.userName);
    }
    const keys = await signingKeys(service);
    assert.deepEqual(keys, await signingKeys(svc), 'the same signing keys are published');
    const verified = await jwtVerify(tokenBefore, createLocalJWKSet(keys));
    assert.equal(verified.payload.sub, machine.userId, "a token the original signed verifies with the restored instance's keys");
    // The machine's secret is checked against a hash keyed by the master key; the new token is signed with a key it unsealed.
    const tokenAfter = await accessToken(service, machine);
    assert.equal(decodeProtectedHeader(tokenAfter).kid, decodeProtectedHeader(tokenBefore).kid);
    await jwtVerify(tokenAfter, createLocalJWKSet(await signingKeys(svc)));
  });

  it('without its master key, the restored database does not start: exit 2, naming the key', async () => {
    assert.ok(restored, 'the restore above ran');
    const backup = join(scratch(), 'again.sqlite');
    let env: Record<string, string>;
    if (MARIADB) env = { DATA_DIR: scratch(), DATABASE_URL: restoredUrl() };
    else {
      await run('deploy/backup/sqlite-backup.sh', [restored.dataDir, backup]);
      env = (await restore(backup)).env;
    }
    const { code, output } = await runToExit({ ...env, PORT: '0', LOG_LEVEL: 'warn' });
    assert.equal(code, 2, output);
    assert.match(output, /MASTER_KEY .*does not decrypt the signing keys in the database: it is not the key this instance was set up with/);
  });
});
