/**
 * When a failed delivery is tried again — a webhook event (docs/webhooks.md) or a mail message (docs/mail.md):
 * exponential backoff, first after about 5 s, at most 24 h in all, then given up on. The n-th retry waits `base · 2^(n-1)`: with the defaults 5 s, 10 s, 20 s, … — 14
 * retries, the last about 11 h after the one before, 22.8 h after the first attempt. A retry that would
 * fall outside the window is not made: the event is given up on (`failing`) and the subscription moves on
 * to the next event, as Svix does ("the message is marked as failed"; later messages are still sent).
 * Stopping instead would hold every later event back for good behind one the receiver never takes.
 */
export function nextRetryAt(failures: number, firstAttemptAt: number, now: number, baseMs: number, windowMs: number): number | undefined {
  const delay = baseMs * 2 ** Math.min(failures - 1, 40);
  const at = now + delay;
  return at - firstAttemptAt > windowMs ? undefined : at;
}
