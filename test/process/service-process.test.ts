import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { runToExit, spawnService } from '../support/process.js';

/** The service as an operator runs it: `node dist/src/main.js`, configured by environment. */
describe('the service process', () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-proc-'));
    database = await createTestDatabase();
    env = { DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) };
  });
  after(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('bootstraps on first start: owner-only secret files, a working PAT, and no secret in the logs', async () => {
    const svc = await spawnService({ ...env, LOG_LEVEL: 'debug' });
    try {
      for (const file of ['admin.pat', 'admin.password', 'master.key']) {
        assert.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
      }
      const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
      const password = readFileSync(join(dataDir, 'admin.password'), 'utf8').trim();
      const api = createClient(svc.url);
      const orgs = await api('GET', '/admin/v1/orgs', { token: pat });
      assert.equal(orgs.status, 200);
      assert.deepEqual(
        orgs.body.orgs.map((o: { name: string }) => o.name),
        ['default'],
      );
      const created = await api('POST', '/admin/v1/orgs', { token: pat, body: { name: 'Persisted Org' } });
      assert.equal(created.status, 201);

      // The request line is written when the response has finished, maybe after the client read it.
      for (let i = 0; i < 50 && !svc.output().includes('"path":"/admin/v1/orgs"'); i++) await new Promise((r) => setTimeout(r, 100));
      const output = svc.output();
      assert.match(output, /"msg":"Portcullis listening on port/);
      assert.match(output, /"req":\{"id":"[^"]+","method":"GET","path":"\/admin\/v1\/orgs"\}/, 'request lines carry a request id');
      assert.ok(!output.includes(pat), 'the PAT is never logged');
      assert.ok(!output.includes(password), 'the admin password is never logged');
      assert.ok(!output.includes(readFileSync(join(dataDir, 'master.key'), 'utf8').trim()), 'the master key is never logged');
    } finally {
      const exit = await svc.stop('SIGTERM');
      assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', JSON.stringify(exit));
    }
  });

  it('keeps everything across a restart with the same DATA_DIR; the old PAT still works', async () => {
    const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const svc = await spawnService(env);
    try {
      const api = createClient(svc.url);
      const orgs = await api('GET', '/admin/v1/orgs', { token: pat });
      assert.equal(orgs.status, 200);
      assert.deepEqual(
        orgs.body.orgs.map((o: { name: string }) => o.name),
        ['default', 'Persisted Org'],
      );
      assert.equal(readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(), pat, 'bootstrap did not run again');
      const events = await api('POST', '/admin/v1/events/_search', { token: pat, body: { event_types: ['user.human.added'] } });
      assert.equal(events.body.events.length, 1, 'one admin user, bootstrapped once');
    } finally {
      await svc.stop();
    }
  });

  it('finishes in-flight requests on SIGTERM, then exits', async () => {
    // A password at bcrypt cost 13 takes several hundred milliseconds to hash: the request is in flight.
    const svc = await spawnService({ ...env, BCRYPT_COST: '13' });
    const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const api = createClient(svc.url);
    const orgId = (await api('GET', '/admin/v1/orgs', { token: pat })).body.orgs[0].id;
    const pending = api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: pat,
      body: { userName: 'in-flight', profile: { firstName: 'In', lastName: 'Flight' }, email: { email: 'f@example.com' }, password: 'a long password' },
    });
    await new Promise((r) => setTimeout(r, 50));
    const exit = svc.stop('SIGTERM');
    const res = await pending;
    assert.equal(res.status, 201, res.text);
    const ended = await exit;
    assert.ok(ended.code === 0 || ended.signal === 'SIGTERM', JSON.stringify(ended));
    // What the stop waited for is said: the request above, and any other still being answered.
    assert.match(svc.output(), /"msg":"stopping \(SIGTERM\): no new connections; waiting for [1-9]\d* request\(s\) in flight"/);
    assert.match(svc.output(), /"msg":"stopped \([1-9]\d* request\(s\) drained\)"/);

    const again = await spawnService(env);
    try {
      const events = await createClient(again.url)('POST', '/admin/v1/events/_search', {
        token: pat,
        body: { event_types: ['user.human.added'], aggregate_id: res.body.userId },
      });
      assert.equal(events.body.events.length, 1, 'the user written during shutdown was committed');
    } finally {
      await again.stop();
    }
  });

  it('writes a heap snapshot on the signal an operator chose for it, and keeps serving', async () => {
    // docs/operations.md: `--heapsnapshot-signal=SIGUSR2`. Nest's default shutdown hooks took SIGUSR2 too, and the
    // process ended right after writing the snapshot.
    const snapshots = mkdtempSync(join(tmpdir(), 'portcullis-snapshots-'));
    const svc = await spawnService(env, { nodeOptions: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`] });
    try {
      svc.child.kill('SIGUSR2');
      // The snapshot is written on the main thread, from the moment its file appears until the service answers again.
      let written: string[] = [];
      for (let i = 0; i < 600 && written.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        written = readdirSync(snapshots).filter((name) => name.endsWith('.heapsnapshot'));
      }
      assert.equal(written.length, 1, 'one snapshot written');
      // With the old hooks the service stopped listening within 0.1 s of the snapshot's end: a second of requests
      // on new connections, each through the database, sees it.
      const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
      for (let i = 0; i < 10; i++) {
        const orgs = await getOnNewConnection(`${svc.url}/admin/v1/orgs`, pat).catch((error: Error) => assert.fail(`${error.message}\n${svc.output()}`));
        assert.ok(orgs.orgs.length > 0);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(svc.child.exitCode, null, `the process is still running:\n${svc.output()}`);
      assert.equal(svc.child.signalCode, null);
      const head = readFileSync(join(snapshots, written[0]!), 'utf8').slice(0, 20);
      assert.match(head, /^\{"snapshot":/);
    } finally {
      const exit = await svc.stop('SIGTERM');
      assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', JSON.stringify(exit));
      rmSync(snapshots, { recursive: true, force: true });
    }
  });

  it('runs two processes over one database: a write through one is read through the other', async () => {
    const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const a = await spawnService(env);
    const b = await spawnService(env);
    try {
      const created = await createClient(a.url)('POST', '/admin/v1/orgs', { token: pat, body: { name: 'Written Through A' } });
      assert.equal(created.status, 201);
      const listed = await createClient(b.url)('GET', '/admin/v1/orgs', { token: pat });
      assert.ok(listed.body.orgs.some((o: { id: string }) => o.id === created.body.id));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('with WORKERS=2 serves from two worker processes that share the data', async () => {
    const pat = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const svc = await spawnService({ ...env, WORKERS: '2' });
    try {
      const api = createClient(svc.url);
      const created = await api('POST', '/admin/v1/orgs', { token: pat, body: { name: 'Shared By Workers' } });
      assert.equal(created.status, 201);
      // Each request on a new connection; the cluster's primary hands connections out round-robin,
      // so consecutive requests land on both workers once the second one is listening too.
      const workers = new Set<number>();
      for (let i = 0; i < 300 && workers.size < 2; i++) {
        workers.add((await getOnNewConnection(`${svc.url}/healthz`)).worker);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 10; i++) {
        const orgs = await getOnNewConnection(`${svc.url}/admin/v1/orgs`, pat);
        assert.ok(
          orgs.orgs.some((o: { id: string }) => o.id === created.body.id),
          'every worker sees the write',
        );
      }

      // Concurrent writes whose transactions read before they write, spread over both workers:
      // none may fail (on SQLite they queue for the write lock instead of failing with SQLITE_BUSY).
      const writes = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          postOnNewConnection(`${svc.url}/management/v1/orgs/${created.body.id}/users/machine`, pat, { userName: `worker-write-${i}`, name: 'w' }),
        ),
      );
      assert.deepEqual(
        writes.filter((status) => status !== 201),
        [],
        'every concurrent write succeeded',
      );
      assert.deepEqual([...workers].sort(), [1, 2], svc.output());
    } finally {
      const exit = await svc.stop('SIGTERM');
      assert.equal(exit.code, 0, svc.output());
    }
  });

  it('refuses to start on a bad configuration, listing every problem', async () => {
    const result = await runToExit({
      DATA_DIR: dataDir,
      PORT: 'eighty',
      WORKERS: '0',
      DATABASE_URL: 'postgres://localhost/db',
      LOG_LEVEL: 'loud',
      MASTER_KEY: 'too-short',
    });
    assert.equal(result.code, 2);
    for (const variable of ['PORT', 'WORKERS', 'DATABASE_URL', 'LOG_LEVEL', 'MASTER_KEY']) {
      assert.match(result.output, new RegExp(`- ${variable} `), `${variable} is reported:\n${result.output}`);
    }
  });
});

/** A GET on a connection of its own (no keep-alive pool), so that the cluster may route it anywhere. */
function getOnNewConnection(url: string, token?: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
  });
}

function postOnNewConnection(url: string, token: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(url, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(data);
  });
}
