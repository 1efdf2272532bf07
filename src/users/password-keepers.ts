import { Injectable } from '@nestjs/common';

/**
 * A room that keeps some users' passwords outside Portcullis (a directory: docs/directories.md, "Write-back").
 * Declared here and registered by that room, so the users room imports none.
 */
export interface PasswordKeeper {
  /** The keeper's name and whether Portcullis may write the user's password there; undefined when it keeps none. */
  keeps(userId: string): Promise<{ name: string; writeBack: boolean } | undefined>;
  /**
   * Writes a new password to the keeper: a reset by the service account, or, given the `current` one, a change made
   * as the person. The keeper's refusal (history, complexity) is thrown as a DomainError with its reason.
   */
  write(userId: string, password: string, current?: string): Promise<void>;
}

/** The registered keepers; a user's password is written where the first that keeps it says. */
@Injectable()
export class PasswordKeepers {
  private readonly keepers: PasswordKeeper[] = [];

  register(keeper: PasswordKeeper): void {
    this.keepers.push(keeper);
  }

  async of(userId: string): Promise<(PasswordKeeper & { name: string; writeBack: boolean }) | undefined> {
    for (const keeper of this.keepers) {
      const kept = await keeper.keeps(userId);
      if (kept) return Object.assign(Object.create(keeper) as PasswordKeeper, kept, { write: keeper.write.bind(keeper) });
    }
    return undefined;
  }
}
