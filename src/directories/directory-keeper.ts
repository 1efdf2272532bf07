import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SyncedFields } from '../users/synced-fields.js';
import type { SyncedFieldsKeeper, SyncedWriter } from '../users/synced-fields.js';
import { directoryById, linkOfUser } from './directories.queries.js';
import { groupLinkOf } from './directory-groups.queries.js';

/**
 * A directory keeps its users' names and addresses, and its groups with their members (docs/directories.md,
 * "Read-only fields"): a change of them by the management API, SCIM or the account page is a 409 naming the
 * directory. Only the sync writes them, showing `writer`, which the registry gave this keeper alone.
 */
@Injectable()
export class DirectoryKeeper implements SyncedFieldsKeeper {
  readonly writer: SyncedWriter;

  constructor(synced: SyncedFields) {
    this.writer = synced.register(this);
  }

  async keeperOf(manager: EntityManager, userId: string): Promise<string | undefined> {
    const link = await linkOfUser(manager, userId);
    return link && (await directoryById(manager, link.directoryId))?.name;
  }

  async groupKeeperOf(manager: EntityManager, groupId: string): Promise<string | undefined> {
    const link = await groupLinkOf(manager, groupId);
    return link && (await directoryById(manager, link.directoryId))?.name;
  }
}
