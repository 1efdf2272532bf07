/**
 * Audit stream delivery (docs/audit-and-signals.md, "Delivery"): Debian's rsyslog, started here with a throw-away CA
 * and listening for RFC 5425 (syslog over TLS), as the one receiver. An instance stream is created, the service
 * stopped, N events written straight into the log, and the service started again: what is measured is the rate at
 * which their N records reach rsyslog's file, from the first to the last arrival, in batches of one TLS connection
 * each, the cursor, sequence and chain written after every batch as in production. The floor beside it: the same
 * rsyslog fed records of the same size in the same framing and batches by a bare node:tls client (no database, no
 * records to build). Then what delivering costs a SCIM create (the webhook benchmark's shape). Needs `rsyslogd`
 * (packages rsyslog and rsyslog-openssl): without it the quick run skips the group and says so, a full run fails.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { octetCounted } from '../../src/audit/delivery/syslog-message.js';
import { rsyslogAvailable, rsyslogReceiver } from '../../test/support/rsyslog.js';
import type { Rsyslog } from '../../test/support/rsyslog.js';
import { throwAwayCa } from '../../test/support/throw-away-ca.js';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { startService, withPeakMemory } from '../lib/processes.js';
import { seedEvents } from '../lib/seed.js';
import { until } from '../lib/until.js';
import { scimCreateUnderDelivery } from './scim-under-delivery.js';

/** rsyslog listens on loopback: the outbound address rules would refuse it otherwise. */
const ENV = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' };
/** Records per batch, as the stream worker sends them (src/audit/delivery/stream-worker.ts). */
const BATCH = 500;

/** rsyslog with its own CA in a temporary directory, and a counter of the lines its file gained. */
interface Receiver {
  rsyslog: Rsyslog;
  ca: string;
  url: string;
  /** Lines (records) counted since the last reset; `first`/`last`: when the first and the latest were seen. */
  count: number;
  first: number;
  last: number;
  /** How many were seen at `first` (a batch arrives at once: those are not part of the rate). */
  atFirst: number;
  /** Reads what the file gained since the last look. */
  poll(): number;
  reset(): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-rsyslog-'));
  const tls = throwAwayCa(dir);
  const rsyslog = await rsyslogReceiver(dir, tls);
  await rsyslog.start();
  let offset = 0;
  const buffer = Buffer.alloc(1 << 20);
  const rx: Receiver = {
    rsyslog,
    ca: readFileSync(tls.ca, 'utf8'),
    url: `syslog+tls://localhost:${rsyslog.port}`,
    count: 0,
    first: 0,
    last: 0,
    atFirst: 0,
    poll() {
      let size: number;
      try {
        size = statSync(rsyslog.file).size;
      } catch {
        return rx.count;
      }
      if (size <= offset) return rx.count;
      const fd = openSync(rsyslog.file, 'r');
      try {
        while (offset < size) {
          const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
          if (read === 0) break;
          let lines = 0;
          for (let i = buffer.indexOf(10, 0); i !== -1 && i < read; i = buffer.indexOf(10, i + 1)) lines++;
          offset += read;
          if (lines > 0) {
            const now = performance.now();
            rx.last = now;
            rx.count += lines;
            if (!rx.first) Object.assign(rx, { first: now, atFirst: rx.count });
          }
        }
      } finally {
        closeSync(fd);
      }
      return rx.count;
    },
    reset() {
      rx.poll();
      Object.assign(rx, { count: 0, first: 0, last: 0, atFirst: 0 });
    },
    async close() {
      await rsyslog.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rx;
}

export async function runAudit(ctx: Context): Promise<void> {
  if (!rsyslogAvailable()) {
    const text = 'audit: rsyslogd not installed (Debian packages rsyslog and rsyslog-openssl)';
    if (ctx.options.quick) {
      console.error(`== ${text}: group skipped`);
      return;
    }
    throw new Error(text);
  }
  await recordsPerSecond(ctx);
  await scimCreateUnderStream(ctx);
}

async function recordsPerSecond(ctx: Context): Promise<void> {
  // Quick: three batches, so that there is a time between the first arrival and the last.
  const events = ctx.options.quick ? 3 * BATCH : 20_000;
  const store = await ctx.newStore();
  const rx = await startReceiver();
  try {
    const setup = await startService(store, 1, undefined, ENV);
    try {
      const admin = adminToken(store.dataDir);
      const { id } = await call(setup.url, admin, 'POST', '/admin/v1/audit-streams', { name: 'bench', type: 'syslog', url: rx.url, caCertificate: rx.ca });
      // Stopped only once its own record is recorded as delivered: one in flight would be sent again after the restart.
      await until(
        'the stream delivers its own record',
        async () => (await call(setup.url, admin, 'GET', `/admin/v1/audit-streams/${id}`)).lastDeliveredSequence === 1,
        30_000,
        50,
      );
    } finally {
      await setup.stop();
    }
    await seedEvents(store, 'bench-audit', 0, events);
    rx.reset();
    const service = await startService(store, 1, undefined, ENV);
    try {
      const { peakMb } = await withPeakMemory(service.pid, () => until('every record in rsyslog', () => rx.poll() >= events, 600_000));
      // The records after the first arrival over the time from it to the last.
      const rate = (rx.count - rx.atFirst) / ((rx.last - rx.first) / 1000);
      inOrder(rx.rsyslog.lines(), events + 1);
      ctx.record({
        scenario: 'audit.syslog-tls',
        label: 'audit records to rsyslog over TLS, one stream, in order',
        kind: 'portcullis',
        server: 'Portcullis WORKERS=1',
        workers: 1,
        size: events,
        unit: 'records/s',
        rate,
        errors: 0,
        peakMb,
      });
    } finally {
      await service.stop();
    }
    // The floor: records of the size the service sent, in its framing and batches, from a client alone.
    const lines = rx.rsyslog.lines();
    const message = lines[lines.length - 1].slice(lines[lines.length - 1].indexOf('{'));
    rx.reset();
    const rate = await bareClient(rx, message, Math.min(events, 10_000));
    ctx.record({
      scenario: 'audit.syslog-tls-floor',
      label: 'audit records to rsyslog over TLS, one stream, in order',
      kind: 'reference',
      server: `node:tls client alone, ${BATCH} per connection`,
      size: events,
      unit: 'records/s',
      rate,
      errors: 0,
    });
  } finally {
    await rx.close();
    await store.drop();
  }
}

/** Every record from 1 to at least `last` in rsyslog's file, in order (a repeat after a retry carries its own sequence). */
function inOrder(lines: string[], last: number): void {
  let expected = 1;
  for (const line of lines) {
    const sequence = Number(/"sequence":(\d+)/.exec(line)?.[1]);
    if (sequence === expected) expected++;
    else if (sequence >= expected) throw new Error(`rsyslog's file: record ${sequence} where ${expected} was due; the file's sequences: ${runs(lines)}`);
  }
  if (expected <= last) throw new Error(`rsyslog's file ends at record ${expected - 1}, not ${last}`);
}

/** The file's sequences as runs (`1, 196–695, 2–195`), the first 30: what a failure needs to tell a reorder from a loss. */
function runs(lines: string[]): string {
  const found: [number, number][] = [];
  for (const line of lines) {
    const sequence = Number(/"sequence":(\d+)/.exec(line)?.[1]);
    const last = found[found.length - 1];
    if (last && sequence === last[1] + 1) last[1] = sequence;
    else found.push([sequence, sequence]);
  }
  const shown = found.slice(0, 30).map(([a, b]) => (a === b ? String(a) : `${a}–${b}`));
  return `${shown.join(', ')}${found.length > 30 ? `, … (${found.length} runs)` : ''}`;
}

/** The same rsyslog fed `count` records of `message`'s size, `BATCH` per TLS connection, each connection closed as the service closes it. */
async function bareClient(rx: Receiver, message: string, count: number): Promise<number> {
  const frame = octetCounted(`<110>1 2026-11-28T00:00:00.000Z localhost portcullis 1 bench - ${message}`);
  const started = performance.now();
  for (let sent = 0; sent < count; sent += BATCH) {
    const frames = Buffer.concat(Array(Math.min(BATCH, count - sent)).fill(frame));
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: 'localhost', port: rx.rsyslog.port, ca: rx.ca }, () => socket.end(frames));
      socket.on('data', () => undefined);
      socket.once('error', reject);
      socket.once('close', () => resolve());
    });
  }
  await until('every floor record in rsyslog', () => rx.poll() >= count, 120_000);
  return count / ((rx.last - started) / 1000);
}

/** SCIM creates with no stream and with an organization's stream into rsyslog over TLS. The target: at most 1.1×. */
async function scimCreateUnderStream(ctx: Context): Promise<void> {
  const rx = await startReceiver();
  try {
    await scimCreateUnderDelivery(ctx, {
      group: 'audit',
      label: 'SCIM create under audit streaming',
      busy: 'streaming',
      idleServer: 'Portcullis WORKERS=1, no stream',
      busyServer: 'Portcullis WORKERS=1, one stream into rsyslog over TLS',
      env: ENV,
      attach: async (serviceUrl, admin, orgId, round) => {
        const { id } = await call(serviceUrl, admin, 'POST', '/admin/v1/audit-streams', {
          name: `bench-${round}`,
          type: 'syslog',
          url: rx.url,
          caCertificate: rx.ca,
          orgId,
        });
        return `/admin/v1/audit-streams/${id}`;
      },
      delivered: () => rx.poll(),
    });
    if (rx.poll() < 2) throw new Error('the stream delivered nothing of the creates');
  } finally {
    await rx.close();
  }
}
