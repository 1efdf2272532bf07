import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { SearchedEvent } from '../support/fixtures.js';
import { startPostReceiver } from '../support/post-receiver.js';
import type { PostReceiver } from '../support/post-receiver.js';

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
    private readonly receiver: PostReceiver,
    readonly url: string,
  ) {}

  static async start(path = '/hook'): Promise<Receiver> {
    let self: Receiver | undefined;
    const receiver = await startPostReceiver(
      (at) => at === path,
      ({ headers, body }) => {
        const header = (name: string) => String(headers[name] ?? '');
        const received: Received = {
          id: header('webhook-id'),
          timestamp: header('webhook-timestamp'),
          signature: header('webhook-signature'),
          body,
          event: JSON.parse(body),
          at: Date.now(),
          answered: 0,
        };
        received.answered = self!.answer(received);
        self!.requests.push(received);
        return received.answered;
      },
    );
    self = new Receiver(receiver, `${receiver.origin}${path}`);
    return self;
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
    return this.receiver.close();
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
