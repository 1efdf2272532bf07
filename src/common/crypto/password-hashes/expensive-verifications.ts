/** How many pieces of work of a pool run at once in one process, how many may wait, and for how long. */
interface PoolLimits {
  atOnce: number;
  maxWaiting: number;
  maxWaitMs: number;
}

/** Too many expensive verifications are running: the attempt was not checked; try again shortly. */
export class VerifierBusyError extends Error {
  /** Seconds after which a retry is likely to find a free slot (HTTP Retry-After). */
  readonly retryAfterSeconds = 2;

  constructor() {
    super('too many password verifications are running; try again shortly');
    this.name = 'VerifierBusyError';
  }
}

/**
 * A process-wide bound on expensive password work: at most `atOnce` run, up to `maxWaiting` more wait at
 * most `maxWaitMs`, and the rest are refused with VerifierBusyError before any work is done.
 */
class BoundedPasswordWork {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limits: PoolLimits) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.atOnce) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.maxWaiting) return Promise.reject(new VerifierBusyError());
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(new VerifierBusyError());
      }, this.limits.maxWaitMs);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter; `running` stays the same.
    if (next) next();
    else this.running--;
  }
}

/**
 * Verifications of imported argon2, scrypt, PBKDF2 and SHA-/MD5-crypt hashes (SECURITY.md, "Checks are
 * atomic"): each may cost up to 256 MiB and about a second of CPU, and any anonymous caller can start one,
 * so two run and a few more wait briefly.
 */
export const expensiveVerifications = new BoundedPasswordWork({ atOnce: 2, maxWaiting: 8, maxWaitMs: 2_000 });

/**
 * Hashes of new passwords set through SCIM and the API (crypto/password-hasher.ts): a bcrypt hash each,
 * asked by authenticated callers, who may send a burst (a Bulk request of 100 users, parallel creations), so
 * the queue is long and the wait patient; past it, 503 with Retry-After.
 */
export const passwordHashing = new BoundedPasswordWork({ atOnce: 2, maxWaiting: 200, maxWaitMs: 10_000 });
