/**
 * Mail outbox throughput (docs/mail.md): N invitations queued while the SMTP server is away, then
 * sent by one process to a local SMTP server (smtp-server in the orchestrator's process, accepting everything).
 * What is measured is the rate at which the N messages arrive, from the first to the last — each one leased,
 * decrypted, rendered by nodemailer and handed over on the process's kept SMTP connection, its row updated as in
 * production.
 *
 * How they are queued: a service whose SMTP_URL points at a closed port takes the invitations through the
 * management API (each first attempt fails at once and is deferred for an hour); it is stopped, the messages are
 * made due, and a service pointing at the SMTP server is started. Beside it, the floors: nodemailer alone sending
 * messages of the same size one at a time to the same server, with a connection per message (as the outbox did
 * until 2026-11-26) and over a kept connection.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { until } from '../lib/until.js';
import { freePort, startService, withPeakMemory } from '../lib/processes.js';
import { execute, scalarOf, seedUsers, userId } from '../lib/seed.js';

interface Sink {
  port: number;
  count: number;
  first: number;
  last: number;
  bytes: number;
  reset(): void;
  close(): Promise<void>;
}

async function startSink(): Promise<Sink> {
  const sink: Sink = {
    port: 0,
    count: 0,
    first: 0,
    last: 0,
    bytes: 0,
    reset: () => Object.assign(sink, { count: 0, first: 0, last: 0, bytes: 0 }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: the outbox would use STARTTLS if offered, and TLS is not what is measured here.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A reverse DNS look-up of 127.0.0.1 per connection would measure the resolver, not the outbox.
    disableReverseLookup: true,
    onData(stream, _session, callback) {
      stream.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
      stream.on('end', () => {
        const now = performance.now();
        sink.count++;
        sink.first ||= now;
        sink.last = now;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.port = (server.server.address() as AddressInfo).port;
  return sink;
}

/** A port nothing listens on: connections are refused at once. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function runMail(ctx: Context): Promise<void> {
  const messages = ctx.options.quick ? 20 : 2_000;
  const store = await ctx.newStore();
  const sink = await startSink();
  try {
    const port = await freePort();
    const away = { SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`, MAIL_RETRY_BASE_MS: '3600000' };
    let service = await startService(store, 1, port, away);
    const admin = adminToken(store.dataDir);
    let orgId: string;
    try {
      orgId = (await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: 'bench-mail' })).id;
    } finally {
      await service.stop();
    }
    await seedUsers(store, orgId, 0, messages);
    service = await startService(store, 1, port, away);
    try {
      for (let i = 0; i < messages; i += 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, messages - i) }, (_, k) =>
            call(service.url, admin, 'POST', `/management/v1/orgs/${orgId}/users/${userId(i + k)}/invite`, {}),
          ),
        );
      }
      await until(
        'every invitation tried once',
        async () => (await scalarOf(store, 'SELECT COUNT(*) FROM mail_messages WHERE attempts >= 1')) >= messages,
        120_000,
        20,
      );
    } finally {
      await service.stop();
    }
    await execute(store, "UPDATE mail_messages SET next_attempt_at = 0 WHERE status = 'pending'");
    sink.reset();
    service = await startService(store, 1, port, { SMTP_URL: `smtp://127.0.0.1:${sink.port}` });
    try {
      const { peakMb } = await withPeakMemory(service.pid, () => until('every message at the SMTP server', () => sink.count >= messages, 600_000, 20));
      const rate = (sink.count - 1) / ((sink.last - sink.first) / 1000);
      ctx.record({
        scenario: 'mail.outbox',
        label: 'mail outbox to a local SMTP server',
        kind: 'portcullis',
        server: 'Portcullis WORKERS=1',
        workers: 1,
        size: messages,
        unit: 'messages/s',
        rate,
        errors: 0,
        peakMb,
      });
      const averageBytes = Math.round(sink.bytes / sink.count);
      for (const pooled of [false, true]) {
        sink.reset();
        const rate = await nodemailerAlone(sink.port, Math.min(messages, 1_000), averageBytes, pooled);
        const server = pooled ? 'nodemailer alone, one pooled connection' : 'nodemailer alone, a connection per message';
        ctx.record({
          scenario: pooled ? 'mail.floor-pooled' : 'mail.floor',
          label: 'mail outbox to a local SMTP server',
          kind: 'reference',
          server,
          size: messages,
          unit: 'messages/s',
          rate,
          errors: 0,
        });
      }
    } finally {
      await service.stop();
    }
  } finally {
    await sink.close();
    await store.drop();
  }
}

/** The floor: messages of the outbox's average size, one at a time, with no database and no encryption. */
async function nodemailerAlone(port: number, count: number, bytes: number, pool: boolean): Promise<number> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool, maxConnections: 1 });
  const text = 'x'.repeat(Math.max(100, Math.floor(bytes / 3)));
  const html = `<p>${'y'.repeat(Math.max(100, Math.floor(bytes / 2)))}</p>`;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await transport.sendMail({
      from: 'Portcullis <no-reply@bench.example.com>',
      to: `user${i}@bench.example.com`,
      subject: 'You are invited',
      text,
      html,
      messageId: `<${i}@bench.example.com>`,
    });
  }
  transport.close();
  return count / ((performance.now() - started) / 1000);
}
