import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';

/** The fields of a user another system keeps in step (a directory's sync: docs/directories.md, "Read-only fields"). */
export const SYNCED_FIELDS = ['userName', 'givenName', 'familyName', 'displayName', 'email'] as const;
export type SyncedField = (typeof SYNCED_FIELDS)[number];

/**
 * A room whose users' synced fields, and whose groups, come from elsewhere. Declared here and registered by that room
 * (a directory), so the users room imports none.
 */
export interface SyncedFieldsKeeper {
  /** The keeper's name (the directory's) when the user's synced fields come from it, else undefined. */
  keeperOf(manager: EntityManager, userId: string): Promise<string | undefined>;
  /** The keeper's name when the group (its name and its members) comes from it, else undefined. */
  groupKeeperOf(manager: EntityManager, groupId: string): Promise<string | undefined>;
}

/**
 * What a keeper's own sync shows to write what it keeps: handed out once, by `register`, to that keeper alone. Not
 * "no editor": the service writes with no editor in many places (bootstrap, imports, sign-in bookkeeping), and none
 * of those may change what a directory keeps.
 */
export interface SyncedWriter {
  readonly brand: 'synced-writer';
}

/**
 * Who keeps which users' synced fields and which groups: a write of them by anyone but the keeper's own sync is a 409
 * naming the keeper, and changes nothing (the next sync would undo it, silently). The check fails closed: a write
 * that shows no writer this registry issued is checked, whoever makes it.
 */
@Injectable()
export class SyncedFields {
  private readonly keepers: SyncedFieldsKeeper[] = [];
  /** The writers issued, each to its keeper; an object made elsewhere is in none. */
  private readonly issued = new WeakMap<SyncedWriter, SyncedFieldsKeeper>();

  register(keeper: SyncedFieldsKeeper): SyncedWriter {
    this.keepers.push(keeper);
    const writer: SyncedWriter = Object.freeze({ brand: 'synced-writer' as const });
    this.issued.set(writer, keeper);
    return writer;
  }

  async assertMayChange(manager: EntityManager, userId: string, changed: readonly SyncedField[], writer?: SyncedWriter): Promise<void> {
    if (changed.length === 0) return;
    for (const keeper of this.others(writer)) {
      const name = await keeper.keeperOf(manager, userId);
      if (name !== undefined)
        throw new DomainError(
          ErrorCode.Conflict,
          `${changed.join(', ')} of this user come from the directory "${name}" and are read-only here; change them in the directory`,
        );
    }
  }

  /** A change of the group's name or members, or its removal: a 409 naming the keeper unless the keeper writes. */
  async assertMayChangeGroup(manager: EntityManager, groupId: string, writer?: SyncedWriter): Promise<void> {
    for (const keeper of this.others(writer)) {
      const name = await keeper.groupKeeperOf(manager, groupId);
      if (name !== undefined)
        throw new DomainError(
          ErrorCode.Conflict,
          `this group and its members come from the directory "${name}" and are read-only here; change them in the directory`,
        );
    }
  }

  /** Every keeper but the one whose writer this is. */
  private others(writer: SyncedWriter | undefined): SyncedFieldsKeeper[] {
    const own = writer === undefined ? undefined : this.issued.get(writer);
    return this.keepers.filter((keeper) => keeper !== own);
  }
}
