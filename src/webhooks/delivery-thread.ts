import { Worker } from 'node:worker_threads';
import type { EventDto } from '../admin/dto/events.dto.js';
import { THREAD_LIMITS } from '../common/operations/thread-limits.js';
import type { AttemptResult } from './webhook-sender.js';

/** One subscription's run of events for the delivery thread. */
export interface DeliveryJob {
  id: number;
  url: string;
  /** The decrypted signing secret (it never leaves the process). */
  secret: string;
  events: { eventId: string; event: EventDto }[];
  /** No attempt starts after this time (ms): the subscription's lease must outlast every attempt. */
  sendUntil: number;
}

export type Attempt = AttemptResult & { attemptAt: number };
export type ToDeliveryThread = { type: 'send'; job: DeliveryJob } | { type: 'abort'; id: number } | { type: 'close' };
export type FromDeliveryThread = { id: number; results: Attempt[] };

/**
 * Sends webhook attempts from a worker thread of this process, so signing, the HTTP client work and the
 * sockets of delivery run beside the requests that write the events instead of on their event loop
 * (what that costs the writers: BENCHMARKS.md, "Where each goal stands"; docs/webhooks.md,
 * "Where delivery runs"). The thread starts with the
 * first job and is shared by every subscription this process holds; each job is sent in order, jobs of
 * different subscriptions side by side. The database work (reading events, recording attempts, leases)
 * stays on the main thread, where the unit of work and its transactions are.
 */
export class DeliveryThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (results: Attempt[]) => void; reject: (error: Error) => void }>();

  constructor(private readonly allowPrivateNetworks: boolean) {}

  /** Sends the job's events until one fails, the deadline passes or `signal` aborts; one result per attempt made. */
  send(job: Omit<DeliveryJob, 'id'>, signal: AbortSignal): Promise<Attempt[]> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<Attempt[]>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ type: 'abort', id } satisfies ToDeliveryThread);
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (results) => (settle(), resolve(results)),
        reject: (error) => (settle(), reject(error)),
      });
      worker.postMessage({ type: 'send', job: { ...job, id } } satisfies ToDeliveryThread);
      if (signal.aborted) onAbort();
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    worker.postMessage({ type: 'close' } satisfies ToDeliveryThread);
    await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./delivery-thread.worker.js', import.meta.url), {
      workerData: { allowPrivateNetworks: this.allowPrivateNetworks },
      resourceLimits: THREAD_LIMITS,
    });
    // The thread never keeps the process alive: the dispatcher closes it on shutdown.
    worker.unref();
    worker.on('message', ({ id, results }: FromDeliveryThread) => {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      waiter?.resolve(results);
    });
    // A thread that died fails its jobs (their subscriptions log it and read again); the next job starts a new one.
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the webhook delivery thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
