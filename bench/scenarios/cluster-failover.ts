/**
 * Failover on the Galera cluster (docs/high-availability.md): a steady stream of client-credentials grants through HAProxy, `kill -9`
 * of the node taking the writes, and the time from the kill to the first grant answered 200 that was sent after it.
 * Every request is recorded with when it was sent and answered, so the failures of the window are counted by status.
 */
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import { startService } from '../lib/processes.js';
import type { Store } from '../lib/processes.js';
import type { GaleraCluster } from '../../test/ha/support/galera-cluster.js';
import { basic, FORM } from './oidc-setup.js';

/** Concurrent clients of the stream, each sending its next grant when the last one is answered (no back-off). */
const STREAM_CLIENTS = 4;
/** Grants before the kill, while the node's share of the writes is checked. */
const STEADY_MS = 2000;
/** Grants after the first success, so that late failures (stale pooled connections) are counted too. */
const AFTER_RECOVERY_MS = 3000;
const RECOVERY_DEADLINE_MS = 60_000;
/** Longer than any answer the service gives in an outage: a request past it counts as `timeout`. */
const REQUEST_TIMEOUT_MS = 15_000;
/** HAProxy (`balance first`) sends a freshly started service's connections here, and then to the next node. */
const WRITER = 0;
const NEXT = 1;
/** Written straight on the next node (bypassing HAProxy and the service) during each kill. */
const PROBE_TABLE = 'bench_failover_probe.commits';
/** Between the probe's commits: its resolution, without adding a load of its own to the cluster. */
const PROBE_PAUSE_MS = 10;

interface Answer {
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or `socket error` / `timeout` when there was none. */
  status: string;
  body?: string;
}

export interface FailoverRound {
  /** From the kill to the first 200 of a grant sent after it. */
  recoveredMs: number;
  /** From the kill to the first and the last failed answer (the last after `recoveredMs` when failures straggle). */
  failuresMs?: { first: number; last: number };
  /** The longest a failed request waited for its answer: what a client waits before it may retry. */
  slowestFailureMs?: number;
  /** Failed answers by status. */
  failed: Record<string, number>;
  /** The first body of each failed status other than the expected 503. */
  samples: Record<string, string>;
  /** Grants answered 200 per second over the whole round. */
  grantsPerSecond: number;
  /** From the kill to the first commit straight on the next node: the cluster's own part of `recoveredMs`. */
  clusterCommitMs: number;
  /** The probe's commits per second over the round (one at a time, PROBE_PAUSE_MS apart). */
  probeCommitsPerSecond: number;
  /** What the next node answered the probe's commits that failed, if any. */
  probeRefusals: string[];
}

/**
 * `rounds` failovers, each on a freshly started service (its connections all on the first node, as after a deploy):
 * the node is started again after each and is Synced before the next.
 */
export async function failoverRounds(
  cluster: GaleraCluster,
  store: Store,
  port: number,
  client: { id: string; secret: string },
  rounds: number,
): Promise<FailoverRound[]> {
  await createProbeTable(cluster);
  const results: FailoverRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const service = await startService(store, 1, port);
    try {
      results.push(await killWriter(cluster, service.url, client));
    } finally {
      await service.stop();
    }
    await cluster.restart(WRITER);
  }
  return results;
}

/** One kill under the stream; the stream and the probe stop however the round ends. */
async function killWriter(cluster: GaleraCluster, url: string, client: { id: string; secret: string }): Promise<FailoverRound> {
  const stream = grantStream(url, client);
  let probe: Awaited<ReturnType<typeof commitProbe>> | undefined;
  try {
    const commitsBefore = await localCommits(cluster);
    await sleep(STEADY_MS);
    checkWriter(commitsBefore, await localCommits(cluster));
    probe = await commitProbe(cluster);
    const killedAt = performance.now();
    await cluster.kill(WRITER);
    const deadline = killedAt + RECOVERY_DEADLINE_MS;
    while (!stream.answers.some((a) => a.sentAt >= killedAt && a.status === '200') && performance.now() < deadline) await sleep(50);
    await sleep(AFTER_RECOVERY_MS);
    const probed = await probe.stop();
    return { ...summarize(await stream.stop(), killedAt), ...probeFigures(probed.commits, killedAt), probeRefusals: probed.refusals };
  } finally {
    await stream.stop();
    await probe?.stop();
  }
}

function summarize(answers: Answer[], killedAt: number): Omit<FailoverRound, 'clusterCommitMs' | 'probeCommitsPerSecond' | 'probeRefusals'> {
  const recovered = answers.filter((a) => a.sentAt >= killedAt && a.status === '200').map((a) => a.answeredAt);
  if (recovered.length === 0) throw new Error(`no grant answered 200 within ${RECOVERY_DEADLINE_MS} ms of the kill`);
  const failures = answers.filter((a) => a.status !== '200');
  const failed: Record<string, number> = {};
  const samples: Record<string, string> = {};
  for (const f of failures) {
    failed[f.status] = (failed[f.status] ?? 0) + 1;
    if (f.status !== '503' && !(f.status in samples)) samples[f.status] = f.body ?? '';
  }
  const elapsedS = (Math.max(...answers.map((a) => a.answeredAt)) - Math.min(...answers.map((a) => a.sentAt))) / 1000;
  return {
    recoveredMs: Math.round(Math.min(...recovered) - killedAt),
    ...(failures.length
      ? {
          failuresMs: {
            first: Math.round(Math.min(...failures.map((f) => f.answeredAt)) - killedAt),
            last: Math.round(Math.max(...failures.map((f) => f.answeredAt)) - killedAt),
          },
          slowestFailureMs: Math.round(Math.max(...failures.map((f) => f.answeredAt - f.sentAt))),
        }
      : {}),
    failed,
    samples,
    grantsPerSecond: (answers.length - failures.length) / elapsedS,
  };
}

/** STREAM_CLIENTS loops of grants until stopped; `answers` grows as they come in. */
function grantStream(url: string, client: { id: string; secret: string }): { answers: Answer[]; stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const grant = async (): Promise<Answer> => {
    const sentAt = performance.now();
    try {
      const res = await fetch(`${url}/oauth/v2/token`, {
        method: 'POST',
        headers: { ...FORM, authorization: basic(client) },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = await res.text();
      return { sentAt, answeredAt: performance.now(), status: String(res.status), ...(res.status === 200 ? {} : { body: body.slice(0, 300) }) };
    } catch (error) {
      const status = error instanceof DOMException && error.name === 'TimeoutError' ? 'timeout' : 'socket error';
      return { sentAt, answeredAt: performance.now(), status, body: String(error) };
    }
  };
  const loops = Array.from({ length: STREAM_CLIENTS }, async () => {
    while (running) answers.push(await grant());
  });
  return {
    answers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

async function createProbeTable(cluster: GaleraCluster): Promise<void> {
  const conn = await mysql.createConnection({ uri: cluster.nodeUrl(NEXT) });
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS ${PROBE_TABLE.split('.')[0]}`);
    await conn.query(`CREATE TABLE IF NOT EXISTS ${PROBE_TABLE} (id BIGINT AUTO_INCREMENT PRIMARY KEY)`);
  } finally {
    await conn.end();
  }
}

interface Commit {
  sentAt: number;
  answeredAt: number;
}

/** One commit after another straight on the next node until stopped; a refused one is retried on a new connection. */
async function commitProbe(cluster: GaleraCluster): Promise<{ stop(): Promise<{ commits: Commit[]; refusals: string[] }> }> {
  const commits: Commit[] = [];
  const refusals: string[] = [];
  const connect = () => mysql.createConnection({ uri: cluster.nodeUrl(NEXT) });
  let conn = await connect();
  let running = true;
  const loop = (async () => {
    while (running) {
      const sentAt = performance.now();
      try {
        await conn.query(`INSERT INTO ${PROBE_TABLE} () VALUES ()`);
        commits.push({ sentAt, answeredAt: performance.now() });
      } catch (error) {
        refusals.push(String(error));
        conn.destroy();
        conn = await connect();
      }
      await sleep(PROBE_PAUSE_MS);
    }
    await conn.end();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { commits, refusals };
    },
  };
}

function probeFigures(commits: Commit[], killedAt: number): Pick<FailoverRound, 'clusterCommitMs' | 'probeCommitsPerSecond'> {
  const after = commits.filter((c) => c.sentAt >= killedAt);
  if (after.length === 0) throw new Error('no commit on the next node after the kill');
  const elapsedS = (commits[commits.length - 1].answeredAt - commits[0].sentAt) / 1000;
  return { clusterCommitMs: Math.round(Math.min(...after.map((c) => c.answeredAt)) - killedAt), probeCommitsPerSecond: commits.length / elapsedS };
}

/** Each of the three nodes' `wsrep_local_commits`: the transactions it took from its own clients (not replicated ones). */
async function localCommits(cluster: GaleraCluster): Promise<number[]> {
  return Promise.all(
    [0, 1, 2].map(async (i) => {
      const conn = await mysql.createConnection({ uri: cluster.nodeUrl(i) });
      try {
        const [rows] = await conn.query(`SHOW GLOBAL STATUS LIKE 'wsrep_local_commits'`);
        return Number((rows as { Value: string }[])[0].Value);
      } finally {
        await conn.end();
      }
    }),
  );
}

/** Fails the round when the node about to be killed is not the one taking the writes: the kill would measure nothing. */
function checkWriter(before: number[], after: number[]): void {
  const grew = after.map((n, i) => n - before[i]);
  if (grew[WRITER] === 0 || grew.some((n, i) => i !== WRITER && n > 0))
    throw new Error(`node ${WRITER} is not the only node taking the writes: local commits grew by ${grew.join(', ')}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
