import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { JsonObject } from '../../common/database/columns.js';
import { ScimError } from '../../scim/errors/scim-error.js';
import { ScimUserRepository } from '../../scim/users/scim-user.repository.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { groupsOfUsers } from '../../users/groups/group.queries.js';
import { LoginNamesService } from '../../users/login-names.service.js';
import type { TargetSettings } from '../provisioning-settings.js';
import { outboundUser } from './outbound-user.js';
import { PushedRoles } from './pushed-roles.js';

/** The users a target receives, read through their owners' functions (src/scim's representation, src/users' groups). */
@Injectable()
export class ProvisionedUsers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly scimUsers: ScimUserRepository,
    private readonly loginNames: LoginNamesService,
    readonly roles: PushedRoles,
  ) {}

  /** The organization's person of that id now; undefined when it is gone or is a service user. */
  async find(orgId: string, userId: string): Promise<UserEntity | undefined> {
    try {
      return await this.scimUsers.findHuman(orgId, userId);
    } catch (error) {
      if (error instanceof ScimError && error.status === 404) return undefined;
      throw error;
    }
  }

  async inAnyGroup(userId: string, groupIds: readonly string[]): Promise<boolean> {
    const groups = (await groupsOfUsers(this.dataSource.manager, [userId])).get(userId) ?? [];
    return groups.some((g) => groupIds.includes(g.id));
  }

  /** The user as a target receives it (docs/provisioning.md, "What is pushed"), with the `userName` the target's settings choose. */
  async document(user: UserEntity, settings: TargetSettings): Promise<JsonObject> {
    const userName =
      settings.userName === 'loginName'
        ? await this.loginNames.loginNameOf(user)
        : settings.userName === 'email'
          ? (user.email ?? user.userName)
          : user.userName;
    const doc = outboundUser(user, userName);
    // RFC 7643 §4.1.2: the roles of the chosen project replace any the user has of its own (docs/provisioning.md, "Roles").
    if (settings.rolesFrom) doc.roles = await this.roles.rolesOf(user.orgId, settings.rolesFrom, user.id);
    return doc;
  }
}
