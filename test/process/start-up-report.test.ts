import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { runToExit, spawnService } from '../support/process.js';
import { freePort } from '../support/service.js';

/**
 * An operator's first start, as the process says it (docs/operations.md, "Start-up"): what runs and where in the first
 * line, a misspelled setting named, Nest's wiring kept to debug, "stopping" and "stopped" on SIGTERM, and a failure an
 * operator can mend as one line with exit code 2.
 */
describe('start-up as the operator reads it', () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-start-up-'));
    database = await createTestDatabase();
    env = { DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) };
  });
  after(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says what it runs with first, names a misspelled setting, keeps the route list at debug, and says when it stops', async () => {
    const svc = await spawnService({ ...env, DATABSE_URL: 'mysql://root@db.example/portcullis', PUBLIC_URL: 'https://id.example.com' });
    const exit = await svc.stop('SIGTERM');
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', JSON.stringify(exit));
    const lines = svc
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const first = lines[0].msg;
    assert.match(first, /^Portcullis \d+\.\d+\.\d+ on Node\.js \d+\.\d+\.\d+: database /);
    assert.match(first, database.url ? /database MySQL\/MariaDB 127\.0\.0\.1:\d+\/portcullis_test_/ : /database SQLite .*portcullis\.sqlite;/);
    assert.ok(first.includes(`PUBLIC_URL https://id.example.com; DATA_DIR ${dataDir}; port `), first);
    assert.ok(!first.includes('@'), 'no user or password of the database URL');
    const warning = lines.find((line) => line.msg.startsWith('DATABSE_URL'));
    assert.equal(warning?.level, 40);
    assert.equal(warning?.msg, 'DATABSE_URL is not a setting of Portcullis: did you mean DATABASE_URL?' + (database.url ? '' : ' (DATABASE_URL is not set)'));
    assert.equal(lines.filter((line) => /^Mapped \{/.test(line.msg)).length, 0, 'routes are listed at debug only');
    assert.ok(lines.length < 25, `${lines.length} lines at info:\n${lines.map((l) => l.msg.slice(0, 120)).join('\n')}`);
    const messages = lines.map((line) => line.msg);
    const stopping = messages.findIndex((msg) => msg.startsWith('stopping (SIGTERM)'));
    assert.ok(stopping > 0, 'says it is stopping');
    assert.equal(messages.at(-1), 'stopped (0 request(s) drained)');
  });

  it('lists the routes at debug', async () => {
    const svc = await spawnService({ ...env, LOG_LEVEL: 'debug' });
    await svc.stop('SIGTERM');
    assert.match(svc.output(), /"level":20,[^\n]*"context":"RouterExplorer","msg":"Mapped \{\/admin\/v1\/orgs, GET\} route"/);
  });

  it('a graceful stop writes out every line a slow reader of its output had left queued', async () => {
    const svc = await spawnService(env);
    const closed = new Promise((resolve) => svc.child.once('close', resolve));
    // The pipe fills (64 KB) while nobody reads it: the rest of the lines wait in the process.
    svc.child.stdout!.pause();
    const requests = 1000;
    for (let sent = 0; sent < requests; sent += 50) {
      await Promise.all(Array.from({ length: 50 }, () => fetch(`${svc.url}/.well-known/openid-configuration`).then((r) => r.arrayBuffer())));
    }
    const stopped = svc.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    svc.child.stdout!.resume();
    await stopped;
    await closed;
    const logged = svc.output().match(/"path":"\/\.well-known\/openid-configuration"/g) ?? [];
    assert.equal(logged.length, requests, 'one line per request');
    assert.match(svc.output(), /"msg":"stopped \(0 request\(s\) drained\)"\}\n$/);
  });

  it('a port in use: one line naming the port and the setting, exit code 2, no stack', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, resolve));
    try {
      const { code, output } = await runToExit({ ...env, PORT: String(port) });
      assert.equal(code, 2, output);
      assert.match(output, new RegExp(`^start-up failed: port ${port} is already in use \\(EADDRINUSE, PORT\\): `, 'm'));
      assert.doesNotMatch(output, /^\s+at /m, 'no stack trace');
    } finally {
      holder.close();
    }
  });

  it('a database server that refuses the connection: one line naming DATABASE_URL, exit code 2', async () => {
    const closed = await freePort();
    const { code, output } = await runToExit({ DATA_DIR: dataDir, DATABASE_URL: `mysql://root:secret-pw@127.0.0.1:${closed}/portcullis` });
    assert.equal(code, 2, output);
    assert.match(output, new RegExp(`^start-up failed: the database server at 127\\.0\\.0\\.1:${closed} \\(DATABASE_URL\\) refused the connection`, 'm'));
    assert.doesNotMatch(output, /^\s+at /m, 'no stack trace');
    assert.ok(!output.includes('secret-pw'), 'the password is never printed');
  });

  it('a database that does not exist on a real server: one line saying how to create it, exit code 2', {
    skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (a MariaDB server)',
  }, async () => {
    const server = new URL(process.env.TEST_DATABASE_URL as string);
    server.pathname = '/portcullis_never_created';
    const { code, output } = await runToExit({ DATA_DIR: dataDir, DATABASE_URL: server.toString() });
    assert.equal(code, 2, output);
    assert.match(output, /^start-up failed: database "portcullis_never_created" does not exist on .* \(DATABASE_URL\): create it \(CREATE DATABASE/m);
    assert.doesNotMatch(output, /^\s+at /m, 'no stack trace');
  });
});
