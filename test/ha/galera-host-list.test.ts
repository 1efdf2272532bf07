import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import { DatabaseNodes } from '../../src/common/database/database-nodes.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { galeraMissing, startGaleraCluster } from './support/galera-cluster.js';
import type { GaleraCluster } from './support/galera-cluster.js';

const missing = galeraMissing();
// The cluster is this file's database whatever the pass: it runs once, in the pass without TEST_DATABASE_URL.
const skip = process.env.TEST_DATABASE_URL ? 'runs on its own cluster, in the other pass' : missing && !process.env.CI ? missing : false;

/** How soon after the first 1047 a process must be writing through another node (docs/high-availability.md). */
const MOVE_WITHIN_MS = 2000;

/**
 * A Galera node that answers 1047 while it stays Synced and ready — an operator's `SET GLOBAL wsrep_reject_queries =
 * ALL` — is skipped (docs/high-availability.md): with the nodes listed in `DATABASE_URL`, at start-up and by a process
 * already on it, which drops the connections it held there; through HAProxy, by its Galera check.
 */
describe('a Galera node that rejects queries while Synced', { skip }, () => {
  let cluster: GaleraCluster;
  let svc: TestService;
  let database: string;
  const nodeOf = (index: number) => {
    const url = new URL(cluster.nodeUrl(index));
    return { host: url.hostname, port: Number(url.port) };
  };
  const hostList = () => {
    const urls = [0, 1, 2].map((i) => new URL(cluster.nodeUrl(i)));
    return `mysql://root@${urls.map((u) => u.host).join(',')}${urls[0]!.pathname}`;
  };
  const onNode = async <T>(index: number, work: (connection: mysql.Connection) => Promise<T>): Promise<T> => {
    const connection = await mysql.createConnection({ ...nodeOf(index), user: 'root' });
    try {
      return await work(connection);
    } finally {
      await connection.end();
    }
  };
  const rejectQueries = (index: number, value: 'ALL' | 'NONE') => onNode(index, (c) => c.query(`SET GLOBAL wsrep_reject_queries = ${value}`));
  /** The connections the service holds open on a node (its pool's, idle or busy). */
  const heldOn = (index: number) =>
    onNode(index, async (c) => {
      const [rows] = await c.query('SHOW FULL PROCESSLIST');
      return (rows as { User: string; db: string | null }[]).filter((row) => row.User === 'root' && row.db === database).length;
    });

  before(async () => {
    if (missing) throw new Error(`CI installs galera-4, haproxy and rsync: ${missing}`);
    database = `portcullis_hosts_${process.pid}`;
    cluster = await startGaleraCluster(database);
    svc = await startService({ DATABASE_URL: hostList(), SIGNING_ALG: 'EdDSA' });
  });
  after(async () => {
    await svc?.close();
    await cluster?.close();
  });

  it(`moves to the next node within ${MOVE_WITHIN_MS} ms of its node answering 1047, and drops the connections it held there`, async (t) => {
    const nodes = svc.app.get(DatabaseNodes);
    assert.deepEqual(nodes.current, nodeOf(0), 'it starts on the first node listed');
    const orgs = () => svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    // Concurrent requests: the pool holds several connections to node 1.
    for (const res of await Promise.all(Array.from({ length: 4 }, orgs))) assert.equal(res.status, 200, res.text);
    assert.ok((await heldOn(0)) > 0, 'the pool holds connections to node 1');

    await rejectQueries(0, 'ALL');
    try {
      let firstRefusal: number | undefined;
      let servedAgain: number | undefined;
      const statuses: number[] = [];
      for (const deadline = Date.now() + 10_000; servedAgain === undefined && Date.now() < deadline; ) {
        const res = await orgs();
        statuses.push(res.status);
        if (res.status === 503) firstRefusal ??= Date.now();
        else if (res.status === 200 && firstRefusal !== undefined) servedAgain = Date.now();
        else assert.equal(res.status, 200, `before and while it moves, 200 or 503: ${res.text}`);
        if (servedAgain === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(firstRefusal !== undefined, `node 1 answered 1047, seen as 503 (answers: ${new Set(statuses)})`);
      assert.ok(servedAgain !== undefined, `it served again through another node within 10 s (${statuses.length} answers: ${new Set(statuses)})`);
      const moveMs = servedAgain - firstRefusal;
      t.diagnostic(`served again ${moveMs} ms after the first 503 (${statuses.filter((s) => s === 503).length} answers 503)`);
      assert.ok(moveMs <= MOVE_WITHIN_MS, `moved in ${moveMs} ms`);
      assert.deepEqual(nodes.current, nodeOf(1), 'the next node listed');
      for (let held = await heldOn(0); held > 0; held = await heldOn(0)) {
        assert.ok(Date.now() - servedAgain < MOVE_WITHIN_MS, `${held} connection(s) still open to node 1`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await rejectQueries(0, 'NONE');
    }
  });

  it('through HAProxy: its Galera check takes a node that answers 1047 out of rotation, and requests go on through the next', async (t) => {
    const proxied = await startService({ DATABASE_URL: cluster.url, DATA_DIR: svc.dataDir, SIGNING_ALG: 'EdDSA' });
    await rejectQueries(0, 'ALL');
    try {
      const orgs = () => proxied.api('GET', '/admin/v1/orgs', { token: proxied.adminToken });
      const refused: number[] = [];
      let served = false;
      for (const deadline = Date.now() + 10_000; !served && Date.now() < deadline; ) {
        const res = await orgs();
        served = res.status === 200 && refused.length > 0;
        if (res.status !== 200) refused.push(res.status);
        if (!served) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(
        refused.every((status) => status === 503),
        `until HAProxy moved, 503: ${new Set(refused)}`,
      );
      assert.ok(served, `served again through another node within 10 s (${refused.length} answers 503)`);
      t.diagnostic(`${refused.length} answers 503 before HAProxy moved`);
    } finally {
      await rejectQueries(0, 'NONE');
      await proxied.close();
    }
  });

  it('a process started while the first node answers 1047 starts on the next', async () => {
    await rejectQueries(0, 'ALL');
    let late: TestService | undefined;
    try {
      late = await startService({ DATABASE_URL: hostList(), DATA_DIR: svc.dataDir, SIGNING_ALG: 'EdDSA' });
      assert.deepEqual(late.app.get(DatabaseNodes).current, nodeOf(1));
      const res = await late.api('GET', '/admin/v1/orgs', { token: late.adminToken });
      assert.equal(res.status, 200, res.text);
    } finally {
      await late?.close();
      await rejectQueries(0, 'NONE');
    }
  });
});
