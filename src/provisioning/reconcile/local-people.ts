import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import type { JsonObject } from '../../common/database/columns.js';
import { parseAttributeList } from '../../scim/query/scim-projection.js';
import { ScimUserRepository } from '../../scim/users/scim-user.repository.js';
import { groupsOfUsers } from '../../users/groups/group.queries.js';
import type { TargetSettings } from '../provisioning-settings.js';
import { ProvisionedUsers } from '../pusher/provisioned-users.js';
import { RECONCILE_LIMIT } from './remote-users.js';

const PAGE_SIZE = 100;

/** A person of the organization as a reconcile sees it: what the target would receive, if it is in scope. */
export interface LocalPerson {
  id: string;
  /** The document pushed for it (pusher/outbound-user.ts); undefined when it is outside the target's scope. */
  doc: JsonObject | undefined;
}

/** The organization's people, read through their owners' functions (src/scim's representation, src/users' groups). */
@Injectable()
export class LocalPeople {
  constructor(
    private readonly dataSource: DataSource,
    private readonly scimUsers: ScimUserRepository,
    private readonly users: ProvisionedUsers,
  ) {}

  /** Every person of the organization (service users are never pushed), at most RECONCILE_LIMIT (else a 400). */
  async of(orgId: string, settings: TargetSettings): Promise<LocalPerson[]> {
    const people: LocalPerson[] = [];
    const selection = parseAttributeList(undefined, undefined);
    for (let startIndex = 1; ; startIndex += PAGE_SIZE) {
      const { total, users } = await this.scimUsers.search(orgId, {
        filter: undefined,
        sort: undefined,
        startIndex,
        count: PAGE_SIZE,
        selection,
        cursor: undefined,
      });
      if (total > RECONCILE_LIMIT)
        throw new DomainError(ErrorCode.FailedPrecondition, `the organization has ${total} people; a reconcile reads at most ${RECONCILE_LIMIT}`);
      const groups =
        settings.scope.users === 'groups'
          ? await groupsOfUsers(
              this.dataSource.manager,
              users.map((u) => u.id),
            )
          : undefined;
      for (const user of users) {
        const inScope = !groups || (groups.get(user.id) ?? []).some((g) => settings.scope.groupIds.includes(g.id));
        if (!inScope) {
          people.push({ id: user.id, doc: undefined });
          continue;
        }
        people.push({ id: user.id, doc: await this.users.document(user, settings) });
      }
      if (users.length < PAGE_SIZE) return people;
    }
  }
}
