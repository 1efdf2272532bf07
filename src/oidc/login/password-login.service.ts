import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { hashPassword, needsRehash, verifyAgainstDummyHash, verifyPassword } from '../../common/crypto/password-hashes/password-hashes.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { LoginNamesService } from '../../users/login-names.service.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import type { UserEntity } from '../../users/entities/user.entity.js';

export type PasswordLoginResult = { ok: true; user: UserEntity } | { ok: false; reason: 'invalid' | 'locked' };

/**
 * The password step of the login UI: every stored hash format the import accepts is verified by its
 * own algorithm and re-hashed to bcrypt at the configured cost on success; each check is recorded
 * (10 failures lock the user, DESIGN §3); an unknown login name costs one bcrypt verification too,
 * so timing does not reveal which login names exist.
 */
@Injectable()
export class PasswordLoginService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly loginNames: LoginNamesService,
    private readonly lifecycle: UserLifecycleService,
    private readonly uow: UnitOfWork,
  ) {}

  async check(loginName: string, password: string): Promise<PasswordLoginResult> {
    const user = await this.loginNames.findUser(loginName);
    if (!user || user.type !== 'human' || !user.passwordHash || user.state === 'inactive') {
      await verifyAgainstDummyHash(password, this.config.bcryptCost);
      return { ok: false, reason: 'invalid' };
    }
    if (user.state === 'locked') {
      await verifyAgainstDummyHash(password, this.config.bcryptCost);
      return { ok: false, reason: 'locked' };
    }
    const hash = user.passwordHash;
    const matches = await verifyPassword(password, hash).catch(() => false);
    const { locked } = await this.lifecycle.recordPasswordCheck(user.id, matches);
    if (!matches) return { ok: false, reason: locked ? 'locked' : 'invalid' };
    if (needsRehash(hash, this.config.bcryptCost)) {
      const rehashed = await hashPassword(password, this.config.bcryptCost);
      await this.uow.run((manager) => this.lifecycle.setPasswordHashIn(manager, user.id, user, rehashed, user.passwordChangeRequired));
    }
    return { ok: true, user };
  }
}
