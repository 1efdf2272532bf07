import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { USER_TOKENS } from '../common/auth/user-tokens.js';
import type { UserTokens } from '../common/auth/user-tokens.js';
import { changedRows } from '../common/database/changed-rows.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';
import type { LockoutSettings } from '../settings/settings.values.js';
import { UserEntity } from './entities/user.entity.js';
import { userEventStatement } from './queries/user-events.js';
import { bump } from './user-lifecycle.service.js';
import { activeUserSql, isActive } from './rules/user-state.js';

/** Where a check came from, for its event: a keyed hash of the client IP, never the address itself. */
export interface CheckSource {
  clientIpHash: string;
}

/** A failed check's event: the password's, or a second factor's (docs/product-rules.md, "Multi-factor sign-in"). */
export interface FailedCheck {
  type: 'user.human.password.check.failed' | 'user.human.mfa.check.failed';
  payload?: { type: string };
}

const PASSWORD_CHECK: FailedCheck = { type: 'user.human.password.check.failed' };

/** The limit is the instance's lockout setting (docs/operations.md, "Settings"); 0 counts without a limit. */
const RESERVE_SQL = `UPDATE users SET failed_password_checks = failed_password_checks + 1
  WHERE id = ? AND type = 'human' AND ${activeUserSql()} AND (? = 0 OR failed_password_checks < ?)`;

/**
 * Password checks of human users, counted atomically (SECURITY.md, "Checks are atomic"): an attempt is
 * counted before its password is verified, in one conditional UPDATE, so parallel guesses can never
 * verify more passwords than the lockout allows; a correct password only counts while the user is still
 * active, so a user locked by guesses running alongside is refused whatever the password. Each check
 * writes its event; a failure's names no editor (the victim did not cause it) but the source.
 */
@Injectable()
export class PasswordChecks {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly settings: InstanceSettings,
    @Optional() @Inject(USER_TOKENS) private readonly tokens?: UserTokens,
  ) {}

  /** The failed checks that lock: a second factor's limit at a factor, the password's otherwise. */
  private async limitOf(check: 'password' | 'factor'): Promise<number> {
    const lockout: LockoutSettings = (await this.settings.get()).lockout;
    return check === 'factor' ? lockout.maxFactorFailures : lockout.maxPasswordFailures;
  }

  /**
   * Counts an attempt for an active human user, unless as many attempts as the lockout allows are already
   * counted. False: refuse the attempt without verifying anything (locked, inactive, or at the limit).
   */
  async reserve(userId: string): Promise<boolean> {
    const limit = await this.limitOf('password');
    return (await this.uow.write(RESERVE_SQL, [userId, limit, limit])) > 0;
  }

  /**
   * `reserve` inside a transaction that goes on to verify and record the check (a second factor's):
   * the counted row stays locked until it commits, so parallel checks of one user still take turns.
   */
  async reserveIn(manager: EntityManager, userId: string): Promise<boolean> {
    const limit = await this.limitOf('factor');
    const { affected } = await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({ failedPasswordChecks: () => 'failed_password_checks + 1' })
      .where(`id = :userId AND type = 'human' AND ${activeUserSql()} AND (:limit = 0 OR failed_password_checks < :limit)`, { userId, limit })
      .execute();
    return affected === 1;
  }

  /**
   * The password was right: recorded, and its own counted attempt given back, but earlier failures stay
   * counted (those of second-factor codes too) until the whole sign-in completes (`signInCompleted`): a
   * known password must not clear the count of guessed codes (docs/product-rules.md, "Multi-factor
   * sign-in"). False when the user is no longer active (locked by attempts verified meanwhile), which
   * refuses the sign-in after all.
   */
  async succeeded(userId: string): Promise<boolean> {
    const { sql, parameters } = userEventStatement('user.human.password.check.succeeded', userId, { onlyActive: true });
    const [recorded] = await Promise.all([this.uow.writeEvents(sql, parameters), this.unchecked(userId)]);
    return recorded > 0;
  }

  /** Every factor the sign-in required was right: the count starts over. */
  async signInCompleted(userId: string): Promise<void> {
    await this.uow.write('UPDATE users SET failed_password_checks = 0 WHERE id = ?', [userId]);
  }

  /** A second factor was right: the count starts over (in the transaction that records the check). */
  async reset(manager: EntityManager, userId: string): Promise<void> {
    await manager.update(UserEntity, { id: userId }, { failedPasswordChecks: 0 });
  }

  /** The password could not be checked (the verifiers are busy): the counted attempt is given back. */
  async unchecked(userId: string): Promise<void> {
    await this.uow.write('UPDATE users SET failed_password_checks = failed_password_checks - 1 WHERE id = ? AND failed_password_checks > 0', [userId]);
  }

  /**
   * The password (or a second factor's code, `check`) was wrong: its counted attempt stays, and the
   * attempt that reaches the limit locks the user.
   */
  async failed(userId: string, source: CheckSource, check: FailedCheck = PASSWORD_CHECK): Promise<void> {
    await this.uow.run((manager) => this.failedIn(manager, userId, source, check));
  }

  /**
   * Ends a lock by failed checks once the lockout's lock time is over (docs/operations.md, "Settings"; 0 keeps it
   * until an administrator unlocks), as the person's next sign-in finds it: the user is active again with no failed
   * check counted, and `user.unlocked` names no editor. True when this call ended it. A lock by an administrator has
   * no lock time and is never ended here.
   */
  async endExpiredLock(user: Pick<UserEntity, 'id' | 'state' | 'failuresLockedAt'>): Promise<boolean> {
    const lockedAt = user.failuresLockedAt;
    if (user.state !== 'locked' || lockedAt === null) return false;
    const { lockSeconds } = (await this.settings.get()).lockout;
    if (lockSeconds === 0 || Date.now() < lockedAt.getTime() + lockSeconds * 1000) return false;
    return this.uow.run(async (manager) => {
      // Only the lock that was read is ended: a concurrent unlock, or a newer lock, is left as it is.
      const affected = await changedRows(
        manager,
        `UPDATE users SET state = 'active', failed_password_checks = 0, failures_locked_at = NULL, version = version + 1, changed_at = ?
          WHERE id = ? AND state = 'locked' AND failures_locked_at = ?`,
        [Date.now(), user.id, lockedAt.getTime()],
      );
      if (affected !== 1) return false;
      const row = await manager.findOneBy(UserEntity, { id: user.id });
      await this.events.push(manager, {
        type: 'user.unlocked',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: row!.orgId,
        editorUserId: null,
        payload: { reason: 'the lock time is over', lockSeconds },
      });
      return true;
    });
  }

  /** `failed` inside the caller's transaction. */
  async failedIn(manager: EntityManager, userId: string, source: CheckSource, check: FailedCheck): Promise<void> {
    const user = await manager.findOneBy(UserEntity, { id: userId });
    if (!user) return;
    const base = { aggregateType: 'user', aggregateId: user.id, resourceOwner: user.orgId } as const;
    // Events are pushed last: pushing takes the event-position lock until commit (event-positions.ts),
    // and the lock below must not be waited for while holding it.
    const failed = { ...base, type: check.type, editorUserId: null, payload: { ...check.payload, ...source } };
    const limit = await this.limitOf(check.type === 'user.human.mfa.check.failed' ? 'factor' : 'password');
    if (limit === 0 || user.failedPasswordChecks < limit || !isActive(user)) return this.events.push(manager, failed);
    // Only the failure whose UPDATE finds the user still active locks it (concurrent ones on MySQL).
    const { affected } = await manager.update(UserEntity, { id: user.id, state: 'active' }, { state: 'locked', failuresLockedAt: new Date(), ...bump(user) });
    if (affected !== 1) return this.events.push(manager, failed);
    await this.tokens?.revokeAll(manager, user.id);
    await this.events.push(manager, failed, { ...base, type: 'user.locked', editorUserId: null, payload: { reason: 'too many failed password checks' } });
  }
}
