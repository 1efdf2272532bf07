import { Injectable } from '@nestjs/common';
import type { Client } from 'ldapts';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { GroupsService } from '../users/groups/groups.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { linksAmong } from './directories.queries.js';
import type { GroupCounts } from './directories.queries.js';
import { membersOfGroups, readGroups } from './directory-group-entries.js';
import type { DirectoryGroup, Present } from './directory-group-entries.js';
import { deleteGroupLink, groupLinksOf, insertGroupLink, updateGroupLink } from './directory-groups.queries.js';
import type { DirectoryGroupRow } from './directory-groups.queries.js';
import { DirectoryKeeper } from './directory-keeper.js';

/** A group the sync could not apply, for the sync's failures. */
export interface GroupFailure {
  dn: string;
  message: string;
}

/**
 * Brings a directory's groups in (docs/directories.md, "Groups"), after its people: every group of the group filter
 * becomes a Portcullis group (`externalId` = its stable id) whose members are the synced people in it, directly or
 * through nested groups; a group renamed or moved keeps its Portcullis group (and so its grants), one gone from the
 * directory is removed. Each group's change and its events share one transaction. Every sync reads all groups:
 * nesting makes a group's members depend on groups that did not change.
 */
@Injectable()
export class DirectoryGroupSync {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly groups: GroupsService,
    private readonly keeper: DirectoryKeeper,
  ) {}

  async sync(client: Client, target: DirectoryTarget, present: Present, counts: GroupCounts, fail: (failure: GroupFailure) => void): Promise<void> {
    const read = await readGroups(client, target.type, target.settings);
    const groups: DirectoryGroup[] = [];
    for (const group of read) {
      if ('problem' in group) {
        counts.failed++;
        fail({ dn: group.dn, message: group.problem });
      } else groups.push(group);
    }
    const members = await membersOfGroups(client, target.type, target.settings, groups, present);
    // Only the members' links, in parts: a large directory's links are never all held at once.
    const memberExternalIds = [...new Set([...members.values()].flatMap((ids) => [...ids]))];
    const userIds = new Map<string, string>();
    for (let i = 0; i < memberExternalIds.length; i += 500)
      for (const link of await linksAmong(this.uow.manager, target.row.id, memberExternalIds.slice(i, i + 500))) userIds.set(link.externalId, link.userId);
    const links = new Map((await groupLinksOf(this.uow.manager, target.row.id)).map((link) => [link.externalId, link]));
    for (const group of groups) {
      const memberIds = [...(members.get(group.externalId) ?? [])].flatMap((id) => userIds.get(id) ?? []);
      try {
        counts[await this.uow.run((manager) => this.apply(manager, target, links.get(group.externalId), group, memberIds))]++;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        counts.failed++;
        fail({ dn: group.dn, message: error.message });
      }
    }
    // A group gone from the directory, or out of the group filter, goes: its grants no longer admit anyone.
    const kept = new Set(groups.map((group) => group.externalId));
    const problems = new Set(read.filter((group) => 'problem' in group).map((group) => group.dn));
    for (const link of links.values()) {
      if (kept.has(link.externalId) || problems.has(link.dn)) continue;
      await this.uow.run(async (manager) => {
        await deleteGroupLink(manager, link.directoryId, link.externalId);
        await this.groups.removeIn(manager, null, target.row.orgId, link.groupId, this.keeper.writer).catch((error) => {
          // Removed already (by its organization's removal): the link was all that was left.
          if (!(error instanceof DomainError)) throw error;
        });
      });
      counts.removed++;
    }
  }

  private async apply(
    manager: EntityManager,
    target: DirectoryTarget,
    link: DirectoryGroupRow | undefined,
    group: DirectoryGroup,
    memberIds: string[],
  ): Promise<keyof GroupCounts> {
    const now = Date.now();
    if (!link) {
      const made = await this.groups.createIn(manager, null, target.row.orgId, { displayName: group.name, externalId: group.externalId }, memberIds, {
        source: 'directory',
        directoryId: target.row.id,
      });
      await insertGroupLink(manager, { directoryId: target.row.id, externalId: group.externalId, groupId: made.id, dn: group.dn, syncedAt: now });
      return 'created';
    }
    const { changed } = await this.groups.editIn(
      manager,
      null,
      target.row.orgId,
      link.groupId,
      [
        { kind: 'set', displayName: group.name, externalId: group.externalId },
        { kind: 'replace', userIds: memberIds },
      ],
      this.keeper.writer,
    );
    if (changed || link.dn !== group.dn) await updateGroupLink(manager, { ...link, dn: group.dn, syncedAt: now });
    return changed ? 'updated' : 'unchanged';
  }
}
