import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { SearchedEvent } from '../support/fixtures.js';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: SearchedEvent;
  at: number;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * A webhook receiver as an operator would write one (node:http): it keeps every request it gets and
 * answers `answer()` (200 unless a test says otherwise). Signatures are checked with the
 * `standardwebhooks` library when a test asks (`verified`), once the secret is known.
 */
export class Receiver {
  readonly requests: Received[] = [];
  answer: (request: Received) => number = () => 200;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hook'): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    server.on('request', (req, res) => {
      // Only deliveries count: another test process's probe of a port it was handed (freePort) may land here first.
      if (req.method !== 'POST' || new URL(req.url ?? '/', receiver.url).pathname !== path) {
        req.resume();
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) => String(req.headers[name] ?? '');
        const received: Received = { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), body, event: JSON.parse(body), at: Date.now(), answered: 0 };
        received.answered = receiver.answer(received);
        receiver.requests.push(received);
        res.writeHead(received.answered, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    return receiver;
  }

  /** The requests answered 2xx. */
  accepted(): Received[] {
    return this.requests.filter((r) => r.answered >= 200 && r.answered < 300);
  }

  /** Checks every request's signature with the standardwebhooks library (throws on the first bad one). */
  verified(secret: string): void {
    const webhook = new Webhook(secret);
    for (const r of this.requests) {
      const headers: IncomingHttpHeaders = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
      assert.deepEqual(webhook.verify(r.body, headers as Record<string, string>), r.event, `signature of ${r.id}`);
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `check` holds (polling), or fails naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The sequences of first deliveries, in the order they arrived. */
export function firstArrivals(requests: readonly Received[]): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (const r of requests) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(Number(r.event.sequence));
  }
  return out;
}
