/** How many imported-hash verifications run at once in one process, how many may wait, and for how long. */
const EXPENSIVE_VERIFICATIONS_AT_ONCE = 2;
const MAX_WAITING = 8;
const MAX_WAIT_MS = 2_000;

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
 * A process-wide bound on verifications of imported argon2, scrypt, PBKDF2 and SHA-/MD5-crypt hashes
 * (SECURITY.md, "Checks are atomic"): each may cost up to 256 MiB and about a second of CPU, and any
 * anonymous caller can start one, so at most EXPENSIVE_VERIFICATIONS_AT_ONCE run, a few more wait briefly,
 * and the rest are refused with VerifierBusyError before any work is done.
 */
class ExpensiveVerifications {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < EXPENSIVE_VERIFICATIONS_AT_ONCE) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(new VerifierBusyError());
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(new VerifierBusyError());
      }, MAX_WAIT_MS);
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

export const expensiveVerifications = new ExpensiveVerifications();
