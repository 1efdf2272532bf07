import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { hashPassword, needsRehash, verifyAgainstDummyHash, verifyPassword } from '../../common/crypto/password-hashes/password-hashes.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import { LoginUsers } from './login-users.js';
import type { LoginUser } from './login-users.js';

export type PasswordLoginResult = { ok: true; user: LoginUser } | { ok: false; reason: 'invalid' | 'locked' };

/**
 * The password step of the login UI: every stored hash format the import accepts is verified by its
 * own algorithm and re-hashed to bcrypt at the configured cost on success; each check is recorded
 * (10 failures lock the user, DESIGN §3); an unknown login name costs one bcrypt verification too,
 * and as long as that recording transaction takes, so timing does not reveal which login names exist
 * (on MariaDB the commit alone is a measurable difference).
 */
@Injectable()
export class PasswordLoginService {
  private readonly users: LoginUsers;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lifecycle: UserLifecycleService,
    private readonly uow: UnitOfWork,
    dataSource: DataSource,
  ) {
    this.users = new LoginUsers(dataSource);
  }

  /** Moving average of how long recording a check takes in this process (milliseconds). */
  private recordingMs = 0;

  async check(loginName: string, password: string): Promise<PasswordLoginResult> {
    const user = await this.users.find(loginName);
    if (!user || user.type !== 'human' || !user.passwordHash || user.state === 'inactive') {
      await verifyAgainstDummyHash(password, this.config.bcryptCost);
      await sleep(this.recordingMs);
      return { ok: false, reason: 'invalid' };
    }
    if (user.state === 'locked') {
      await verifyAgainstDummyHash(password, this.config.bcryptCost);
      return { ok: false, reason: 'locked' };
    }
    const hash = user.passwordHash;
    const matches = await verifyPassword(password, hash).catch(() => false);
    const started = performance.now();
    const { locked } = await this.lifecycle.recordPasswordCheck(user.id, matches, user.failedPasswordChecks);
    this.recordingMs = 0.8 * this.recordingMs + 0.2 * (performance.now() - started);
    if (!matches) return { ok: false, reason: locked ? 'locked' : 'invalid' };
    if (needsRehash(hash, this.config.bcryptCost)) {
      const rehashed = await hashPassword(password, this.config.bcryptCost);
      await this.uow.run((manager) => this.lifecycle.setPasswordHashIn(manager, user.id, user, rehashed, user.passwordChangeRequired, { rehash: true }));
    }
    return { ok: true, user };
  }
}
