import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { VerifierBusyError, hashPassword, needsRehash, verifyAgainstDummyHash, verifyPassword } from '../common/crypto/password-hashes/password-hashes.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { logins } from '../common/metrics/metrics.js';
import { PasswordChecks } from '../users/password-checks.service.js';
import type { CheckSource } from '../users/password-checks.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { LoginUsers } from './login-users.js';
import { ExternalPasswords } from './external-passwords.js';
import { PasswordKeepers } from '../users/password-keepers.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { ExternalPasswordCheck } from './external-passwords.js';
import type { LoginUser } from './login-users.js';
import { isActive } from '../users/rules/user-state.js';

/**
 * `unreachable`: the user's password is kept by a directory that could not be reached; `expired`: the directory says
 * the (right) password has expired or must be changed first (docs/directories.md, "Sign-in").
 */
export type PasswordLoginResult = { ok: true; user: LoginUser } | { ok: false; unreachable?: true; expired?: true; writeBack?: boolean };

/**
 * The password step of the login UI: every stored hash format the import accepts is verified by its
 * own algorithm and re-hashed to bcrypt at the configured cost on success. Each attempt is counted
 * before its password is verified (PasswordChecks), so parallel guesses cannot outrun the lockout, and a
 * locked user is refused whatever the password. Unknown, inactive and locked users get the same answer
 * as a wrong password, after one bcrypt verification and as long as counting and recording take, so
 * neither the answer nor its timing reveals which login names exist (SECURITY.md).
 */
@Injectable()
export class PasswordLoginService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lifecycle: UserLifecycleService,
    private readonly checks: PasswordChecks,
    private readonly uow: UnitOfWork,
    private readonly users: LoginUsers,
    private readonly external: ExternalPasswords,
    private readonly keepers: PasswordKeepers,
  ) {}

  /** Moving average of how long counting and recording a failed check take in this process (milliseconds). */
  private recordingMs = 0;

  /** Checks the password and counts the result (`portcullis_logins_total`). */
  /**
   * `directoryOnly`: the directory door of a passkeys-only organization (docs/passwordless.md): only a password a
   * directory keeps is checked; any other user gets the answer of an unknown one.
   */
  check(loginName: string, password: string, source: CheckSource, { directoryOnly = false } = {}): Promise<PasswordLoginResult> {
    return this.counted(() => this.users.find(loginName), password, source, directoryOnly);
  }

  /** The current password of a signed-in user (the account page's password change), counted like a sign-in's. */
  checkUser(userId: string, password: string, source: CheckSource): Promise<PasswordLoginResult> {
    return this.counted(() => this.users.findById(userId), password, source);
  }

  /**
   * An expired directory password changed on the way in (docs/directories.md, "Sign-in"): the current one is checked
   * and counted like any sign-in's; only when the directory calls it expired is the new one written there, as the
   * person. `refused`: the directory's (or the policy's) reason; nothing changed.
   */
  async changeExpired(
    loginName: string,
    current: string,
    password: string,
    source: CheckSource,
  ): Promise<PasswordLoginResult | { ok: false; refused: string }> {
    const user = await this.users.find(loginName);
    const result = await this.counted(async () => user, current, source);
    if (result.ok || !result.expired || !user) return result;
    try {
      await this.lifecycle.setPassword(user.id, user.orgId, user.id, password, { method: 'change', current });
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, refused: error.message };
      throw error;
    }
    return { ok: true, user };
  }

  private async counted(find: () => Promise<LoginUser | null>, password: string, source: CheckSource, directoryOnly = false): Promise<PasswordLoginResult> {
    try {
      const result = await this.verify(await find(), password, source, directoryOnly);
      logins.inc({ result: result.ok ? 'success' : result.locked ? 'locked' : 'failure' });
      if (result.ok) return result;
      if (result.unreachable) return { ok: false, unreachable: true };
      return result.expired ? { ok: false, expired: true, writeBack: result.writeBack } : { ok: false };
    } catch (error) {
      logins.inc({ result: error instanceof VerifierBusyError ? 'busy' : 'error' });
      throw error;
    }
  }

  private async verify(
    user: LoginUser | null,
    password: string,
    source: CheckSource,
    directoryOnly: boolean,
  ): Promise<PasswordLoginResult & { locked?: boolean }> {
    const keeper = user?.type === 'human' ? await this.external.of(user.id) : undefined;
    if (!user || user.type !== 'human' || (!user.passwordHash && !keeper) || (directoryOnly && !keeper) || !isActive(user)) return this.refuse(password);
    const started = performance.now();
    const reserved = await this.checks.reserve(user.id);
    const countingMs = performance.now() - started;
    if (!reserved) return { ...(await this.refuse(password, countingMs)), locked: true };
    if (keeper) return this.verifyElsewhere(keeper, user, password, source);
    const hash = user.passwordHash!;
    const matches = await verifyPassword(password, hash).catch(async (error: unknown) => {
      // Too many imported hashes in verification: nothing was checked, so nothing counts (503 upstream).
      if (error instanceof VerifierBusyError) {
        await this.checks.unchecked(user.id);
        throw error;
      }
      return false;
    });
    if (!matches) {
      const recording = performance.now();
      await this.checks.failed(user.id, source);
      this.recordingMs = 0.8 * this.recordingMs + 0.2 * (countingMs + performance.now() - recording);
      return { ok: false };
    }
    if (!(await this.checks.succeeded(user.id))) return { ok: false };
    if (needsRehash(hash, this.config.bcryptCost)) {
      const rehashed = await hashPassword(password, this.config.bcryptCost);
      await this.uow.run((manager) => this.lifecycle.setPasswordHashIn(manager, user.id, user, rehashed, user.passwordChangeRequired, { rehash: true }));
    }
    return { ok: true, user };
  }

  /**
   * A password its directory keeps, checked by binding as the person: counted before the bind like any other
   * (docs/directories.md, "Sign-in"); an unreachable directory gives the attempt back and says so.
   */
  private async verifyElsewhere(keeper: ExternalPasswordCheck, user: LoginUser, password: string, source: CheckSource): Promise<PasswordLoginResult> {
    const answer = await keeper.check(user.id, password);
    if (answer === 'unreachable') {
      await this.checks.unchecked(user.id);
      return { ok: false, unreachable: true };
    }
    if (answer === 'mismatch') {
      await this.checks.failed(user.id, source);
      return { ok: false };
    }
    if (answer === 'expired') {
      // The right password, which the directory will not let sign in until it is changed: not a failure, no sign-in.
      await this.checks.unchecked(user.id);
      return { ok: false, expired: true, writeBack: (await this.keepers.of(user.id))?.writeBack === true };
    }
    return (await this.checks.succeeded(user.id)) ? { ok: true, user } : { ok: false };
  }

  /** The answer for a user that cannot sign in: one dummy verification, and the time a counted failure would take. */
  private async refuse(password: string, alreadySpentMs = 0): Promise<PasswordLoginResult> {
    await verifyAgainstDummyHash(password, this.config.bcryptCost);
    await sleep(Math.max(0, this.recordingMs - alreadySpentMs));
    return { ok: false };
  }
}
