import { parentPort, workerData } from 'node:worker_threads';
import type { AttemptResult } from './webhook-sender.js';
import { WebhookSender } from './webhook-sender.js';
import { webhookHeaders } from '../common/crypto/standard-webhooks.js';
import type { DeliveryJob, FromDeliveryThread, ToDeliveryThread } from './delivery-thread.js';

/**
 * The delivery thread's side (docs/webhooks.md, "Where delivery runs"): signs and sends the events of a
 * job one at a time, in order, and answers with one result per attempt. It stops at the first failed
 * attempt (what follows waits behind it, and the subscription decides whether to retry), when the
 * job's lease deadline has passed, or when the job is aborted.
 */
const sender = new WebhookSender((workerData as { allowPrivateNetworks: boolean }).allowPrivateNetworks);
const aborts = new Map<number, AbortController>();

async function run(job: DeliveryJob): Promise<void> {
  const abort = new AbortController();
  aborts.set(job.id, abort);
  const results: (AttemptResult & { attemptAt: number })[] = [];
  try {
    for (const { eventId, event } of job.events) {
      const attemptAt = Date.now();
      if (abort.signal.aborted || attemptAt > job.sendUntil) break;
      const body = JSON.stringify(event);
      const result = await sender.send(job.url, webhookHeaders(job.secret, eventId, Math.floor(attemptAt / 1000), body), body, abort.signal);
      results.push({ ...result, attemptAt });
      if (!result.ok) break;
    }
  } finally {
    aborts.delete(job.id);
    parentPort!.postMessage({ id: job.id, results } satisfies FromDeliveryThread);
  }
}

parentPort!.on('message', (message: ToDeliveryThread) => {
  if (message.type === 'abort') aborts.get(message.id)?.abort();
  else if (message.type === 'close') sender.close();
  else void run(message.job);
});
