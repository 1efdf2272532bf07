import { Injectable } from '@nestjs/common';
import type { LoggedEvent } from '../../common/events/event-log.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { allMembers } from '../../users/groups/group.queries.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import { projectNameIn } from '../../users/project-access/project-names.js';
import type { TargetSettings } from '../provisioning-settings.js';
import { markAt } from './dirty-marks.js';

/** A role as RFC 7643 §4.1.2 has it: `value` the role's key, `type` the name of the project it is of. */
export type PushedRole = { value: string; type: string };

/**
 * The roles a target with `rolesFrom` receives (docs/provisioning.md, "Roles"): the user's roles in that project, read
 * through the users domain's access service, and the users whose roles a run of grant events changed.
 */
@Injectable()
export class PushedRoles {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly access: ApplicationAccess,
  ) {}

  /** The user's roles in the project, by key (sorted by code point); none once the project is gone. */
  async rolesOf(orgId: string, projectId: string, userId: string): Promise<PushedRole[]> {
    const projectName = await projectNameIn(this.uow.manager, orgId, projectId);
    if (projectName === undefined) return [];
    return (await this.access.rolesIn(projectId, userId)).map((key) => ({ value: key, type: projectName }));
  }

  /**
   * Marks the users a grant of the target's project reaches when the grant was added, changed or removed: its user, or
   * the group's members now (a removed role changes each grant, with an event per grant).
   */
  async markHolders(events: readonly LoggedEvent[], settings: TargetSettings, marks: Map<string, number>): Promise<void> {
    const projectId = settings.rolesFrom;
    if (!projectId) return;
    for (const event of events) {
      if (!event.type.startsWith('project.grant.') || event.payload?.projectId !== projectId) continue;
      const { userId, groupId } = event.payload;
      if (typeof userId === 'string') markAt(marks, userId, event.position);
      else if (typeof groupId === 'string') for (const member of await allMembers(this.uow.manager, groupId)) markAt(marks, member, event.position);
    }
  }
}
