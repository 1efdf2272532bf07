import type { DataSource } from 'typeorm';
import type { LoginRateLimitConfig } from '../../common/config/config.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { statementsOf } from '../../common/database/statements.js';

/**
 * Rate limits on the login UI's password checks, per client IP and per login name, on top of the
 * lockout (DESIGN §3). Failures are counted per fixed window in `login_attempts`, so all workers and
 * processes of an instance share the count; keys are keyed hashes, so the table names no one.
 * A check reads the count first and a failure adds to it afterwards: concurrent attempts can overshoot
 * a limit by at most the number of checks in flight at that moment.
 */
export class LoginRateLimiter {
  /** Start of the window whose predecessors this process last deleted. */
  private purgedBefore = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly limits: LoginRateLimitConfig,
  ) {}

  /** Seconds until the current window ends if a limit is reached for this IP or login name, else undefined. */
  async retryAfter(ip: string, loginName: string): Promise<number | undefined> {
    const { now, windowStart } = this.window();
    const keys = this.keys(ip, loginName);
    const rows = await statementsOf(this.dataSource).rows<{ key_hash: string; failures: number | string }>(
      'SELECT key_hash, failures FROM login_attempts WHERE window_start = ? AND key_hash IN (?, ?)',
      [windowStart, keys[0].hash, keys[1].hash],
    );
    const reached = rows.some((row) => Number(row.failures) >= (keys.find((k) => k.hash === row.key_hash)?.limit ?? Infinity));
    return reached ? Math.max(1, windowStart + this.limits.windowSeconds - now) : undefined;
  }

  async recordFailure(ip: string, loginName: string): Promise<void> {
    const { windowStart } = this.window();
    const upsert =
      this.dataSource.options.type === 'mysql'
        ? 'INSERT INTO login_attempts (key_hash, window_start, failures) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE failures = failures + 1'
        : 'INSERT INTO login_attempts (key_hash, window_start, failures) VALUES (?, ?, 1) ON CONFLICT (key_hash, window_start) DO UPDATE SET failures = failures + 1';
    for (const key of this.keys(ip, loginName)) await this.dataSource.query(upsert, [key.hash, windowStart]);
    if (windowStart > this.purgedBefore) {
      // Past windows no longer count; one purge per window and process.
      this.purgedBefore = windowStart;
      await this.dataSource.query('DELETE FROM login_attempts WHERE window_start < ?', [windowStart]);
    }
  }

  private keys(ip: string, loginName: string) {
    return [
      { hash: this.hasher.hash(`login-rate/ip:${ip}`), limit: this.limits.failuresPerIp },
      { hash: this.hasher.hash(`login-rate/name:${loginName.trim().toLowerCase()}`), limit: this.limits.failuresPerLoginName },
    ];
  }

  private window() {
    const now = Math.floor(Date.now() / 1000);
    return { now, windowStart: now - (now % this.limits.windowSeconds) };
  }
}
