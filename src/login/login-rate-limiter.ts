import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig, LoginRateLimitConfig } from '../common/config/config.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { typedLoginName } from '../users/rules/user-name.js';

/**
 * Rate limits on the login UI's password checks, per client IP and per login name, on top of the
 * lockout. Attempts are counted per fixed window in `login_attempts`, so all workers and processes of an
 * instance share the count; keys are keyed hashes, so the table names no one. An attempt is counted
 * before its password is checked, by one conditional upsert per key that refuses to count past the limit,
 * so parallel attempts cannot overshoot it (SECURITY.md, "Checks are atomic"); a successful sign-in
 * gives its attempt back, so the limits count failures. One instance per process serves every step of
 * the login UI (password, second factor, passkey, registration).
 */
@Injectable()
export class LoginRateLimiter {
  /** Start of the window whose predecessors this process last deleted. */
  private purgedBefore = 0;
  private readonly mysql: boolean;
  private readonly limits: LoginRateLimitConfig;

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly hasher: SecretHasher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.mysql = dataSource.options.type === 'mysql';
    this.limits = config.loginRateLimit;
  }

  /**
   * Counts an attempt for this IP and login name. Undefined: go ahead. A number: a limit is reached, and
   * these are the seconds until the window ends; nothing is to be checked.
   */
  async reserve(ip: string, loginName?: string): Promise<number | undefined> {
    const { now, windowStart } = this.window();
    // Without a login name (registration) only the IP counts.
    const keys = loginName === undefined ? [this.ipKey(ip)] : [this.ipKey(ip), this.nameKey(loginName)];
    const counted = await Promise.all(keys.map((key) => this.count(key.hash, windowStart, key.limit)));
    await this.purge(windowStart);
    return counted.every(Boolean) ? undefined : Math.max(1, windowStart + this.limits.windowSeconds - now);
  }

  /**
   * One atomic count for one key: true when it was still below its limit. SQLite: an upsert that updates
   * only below the limit, its change count telling whether it did. MySQL: mysql2 reports found rather than
   * changed rows, so the upsert always counts and hands the new value back through LAST_INSERT_ID(expr), which
   * the server returns as the statement's insert id: one statement in autocommit.
   */
  private async count(keyHash: string, windowStart: number, limit: number): Promise<boolean> {
    if (!this.mysql) {
      const sql =
        'INSERT INTO login_attempts (key_hash, window_start, failures) VALUES (?, ?, 1) ON CONFLICT (key_hash, window_start) DO UPDATE SET failures = failures + 1 WHERE failures < ?';
      return (await this.uow.write(sql, [keyHash, windowStart, limit])) > 0;
    }
    const counted = await this.uow.insertId(
      'INSERT INTO login_attempts (key_hash, window_start, failures) VALUES (?, ?, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE failures = LAST_INSERT_ID(failures + 1)',
      [keyHash, windowStart],
    );
    return counted <= limit;
  }

  /**
   * Counts a dynamic client registration (RFC 7591) from this IP in its own one-minute window, with the same atomic
   * count. Undefined: go ahead; a number: the seconds until the window ends.
   */
  async reserveRegistration(ip: string): Promise<number | undefined> {
    const now = Math.floor(Date.now() / 1000);
    const windowStart = now - (now % 60);
    const counted = await this.count(this.hasher.hash(`registration-rate/ip:${ip}`), windowStart, this.limits.registrationsPerIpPerMinute);
    return counted ? undefined : Math.max(1, windowStart + 60 - now);
  }

  /** A successful sign-in (or a right device user code, without a login name): its attempt does not count against the limits. */
  async release(ip: string, loginName?: string): Promise<void> {
    const { windowStart } = this.window();
    const ipHash = this.ipKey(ip).hash;
    await this.uow.write('UPDATE login_attempts SET failures = failures - 1 WHERE window_start = ? AND key_hash IN (?, ?) AND failures > 0', [
      windowStart,
      ipHash,
      loginName === undefined ? ipHash : this.nameKey(loginName).hash,
    ]);
  }

  /** The keyed hash of the client IP, as events of failed checks carry it (the same as its rate-limit key). */
  ipHash(ip: string): string {
    return this.ipKey(ip).hash;
  }

  /** Past windows no longer count; one purge per window and process. */
  private async purge(windowStart: number): Promise<void> {
    if (windowStart <= this.purgedBefore) return;
    this.purgedBefore = windowStart;
    await this.uow.write('DELETE FROM login_attempts WHERE window_start < ?', [windowStart]);
  }

  private ipKey(ip: string) {
    return { hash: this.hasher.hash(`login-rate/ip:${ip}`), limit: this.limits.failuresPerIp };
  }

  private nameKey(loginName: string) {
    return { hash: this.hasher.hash(`login-rate/name:${typedLoginName(loginName).toLowerCase()}`), limit: this.limits.failuresPerLoginName };
  }

  private window() {
    const now = Math.floor(Date.now() / 1000);
    return { now, windowStart: now - (now % this.limits.windowSeconds) };
  }
}
