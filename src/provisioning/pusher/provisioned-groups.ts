import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { allMembers, findGroup, groupSummaries, groupsOfUsers } from '../../users/groups/group.queries.js';
import type { GroupRow } from '../../users/groups/group.queries.js';

/** The groups a target receives, read through their owner's functions (src/users/groups). */
@Injectable()
export class ProvisionedGroups {
  constructor(private readonly dataSource: DataSource) {}

  /** The organization's group of that id now; undefined when it is gone. */
  find(orgId: string, groupId: string): Promise<GroupRow | undefined> {
    return findGroup(this.dataSource.manager, orgId, groupId);
  }

  /** The ids of the organization's groups. */
  async idsOf(orgId: string): Promise<string[]> {
    return (await groupSummaries(this.dataSource.manager, orgId)).map((g) => g.id);
  }

  members(groupId: string): Promise<string[]> {
    return allMembers(this.dataSource.manager, groupId);
  }

  /** The ids of each user's groups. */
  async groupsOf(userIds: readonly string[]): Promise<Map<string, string[]>> {
    const groups = await groupsOfUsers(this.dataSource.manager, userIds);
    return new Map([...groups].map(([userId, list]) => [userId, list.map((g) => g.id)]));
  }
}
