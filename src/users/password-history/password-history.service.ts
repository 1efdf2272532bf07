import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PasswordHasher } from '../../common/crypto/password-hasher.js';
import { VerifierBusyError } from '../../common/crypto/password-hashes/password-hashes.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { InstanceSettings } from '../../settings/instance-settings.service.js';
import { currentHashIn, keepPreviousIn, pruneAllIn, recentHashes } from './password-history.queries.js';

/**
 * The password policy's history (docs/operations.md, "Settings"), as Keycloak's "Not Recently Used": with
 * `historyCount` N, a new password may equal none of the person's last N passwords, the current one included, so
 * N - 1 previous hashes are kept. Every surface that sets a password by or for the person asks `problemOf` before it
 * hashes the new one and words the answer its own way; an import of hashes sets nothing here.
 */
@Injectable()
export class PasswordHistory {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly settings: InstanceSettings,
    private readonly passwords: PasswordHasher,
  ) {
    // A shorter history keeps fewer previous hashes from now on: none longer than the policy needs them.
    settings.follow(async (manager, before, after) => {
      if (after.passwordPolicy.historyCount < before.passwordPolicy.historyCount) await pruneAllIn(manager, after.passwordPolicy.historyCount - 1);
    });
  }

  /** What is wrong with `password` as the user's next one under the history rule; undefined when nothing is. */
  async problemOf(userId: string, password: string): Promise<string | undefined> {
    const count = (await this.settings.get()).passwordPolicy.historyCount;
    if (count === 0) return undefined;
    for (const hash of await recentHashes(this.uow.manager, userId, count - 1)) {
      if (await this.matches(password, hash))
        return count === 1 ? 'password must differ from the current one' : `password must differ from the last ${count} passwords`;
    }
    return undefined;
  }

  /** `problemOf` as the domain's 400, in the words the password policy's refusals use. */
  async assertNotReused(userId: string, password: string): Promise<void> {
    const problem = await this.problemOf(userId, password);
    if (problem) throw DomainError.invalid('the password does not meet the password policy', [{ field: 'password', message: problem }]);
  }

  /**
   * In the transaction that replaces the user's password, before the new hash is written: the current one becomes a
   * previous hash, and no more are kept than the policy needs.
   */
  async rememberCurrentIn(manager: EntityManager, userId: string): Promise<void> {
    const count = (await this.settings.get()).passwordPolicy.historyCount;
    await keepPreviousIn(manager, userId, count > 1 ? await currentHashIn(manager, userId) : null, count - 1);
  }

  private async matches(password: string, hash: string): Promise<boolean> {
    try {
      return await this.passwords.verify(password, hash);
    } catch (error) {
      if (error instanceof VerifierBusyError) throw new DomainError(ErrorCode.Unavailable, 'too many passwords are being checked at once; try again shortly');
      // A kept hash that can no longer be read (garbled, or of a format this version dropped) matches nothing.
      return false;
    }
  }
}
