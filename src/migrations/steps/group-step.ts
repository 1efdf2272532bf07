import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { foldCase } from '../../common/text/case-fold.js';
import { membersAmong } from '../../users/groups/group.queries.js';
import type { GroupsService } from '../../users/groups/groups.service.js';
import type { PlannedGroup } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * The groups of a plan through the groups service, so every change is the usual event in its own transaction and
 * the acting rule applies. A group is found again by the id map, else by its name (an earlier run that stopped
 * between the group and its map entry, or a group the operator made); members are added and, of the users this
 * document holds, removed as the source says. A user the document does not hold is left as it is: the CLI sends a
 * large realm as several documents with a part of the users each (docs/migrating.md, "The command"), and members
 * added here by hand stay.
 */
export class GroupStep {
  constructor(
    private readonly groups: GroupsService,
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(planned: PlannedGroup[], userTargets: Map<string, string>): Promise<void> {
    const existing = this.run.orgId === '' ? [] : await this.groups.list(this.run.orgId);
    const byId = new Map(existing.map((g) => [g.id, g]));
    const byName = new Map(existing.map((g) => [foldCase(g.displayName), g]));
    const mapped = await this.objects.find(
      'group',
      planned.map((g) => g.sourceId),
    );
    const movedIn = new Set(userTargets.values());
    for (const group of planned) {
      const desired = [...new Set(group.memberSourceIds.flatMap((id) => (userTargets.has(id) ? [userTargets.get(id)!] : [])))];
      const fingerprint = fingerprintOf({ displayName: group.displayName, externalId: group.externalId });
      const found = byId.get(mapped.get(group.sourceId)?.targetId ?? '') ?? byName.get(foldCase(group.displayName));
      try {
        if (!found) await this.create(group, desired, fingerprint);
        else await this.sync(group, found.id, desired, movedIn, fingerprint, mapped.has(group.sourceId));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'group', sourceId: group.sourceId, message: error.message });
      }
    }
  }

  private async create(group: PlannedGroup, members: string[], fingerprint: string): Promise<void> {
    if (!this.run.dryRun) {
      const made = await this.groups.create(this.run.editorUserId, this.run.orgId, { displayName: group.displayName, externalId: group.externalId }, members);
      await this.uow.run((manager) => this.objects.remember(manager, 'group', [{ sourceId: group.sourceId, targetId: made.id, fingerprint }]));
    }
    this.tally.count('group', 'created');
  }

  private async sync(group: PlannedGroup, groupId: string, desired: string[], movedIn: Set<string>, fingerprint: string, wasMapped: boolean): Promise<void> {
    // Only the members among the users this document holds: a part's cost stays the same however large the group.
    const current = await membersAmong(this.uow.manager, groupId, [...movedIn]);
    const wanted = new Set(desired);
    const add = desired.filter((id) => !current.has(id));
    const remove = [...current].filter((id) => movedIn.has(id) && !wanted.has(id));
    if (add.length === 0 && remove.length === 0 && wasMapped) {
      this.tally.count('group', 'unchanged');
      return;
    }
    if (!this.run.dryRun) {
      const changes = [
        ...(add.length > 0 ? [{ kind: 'add' as const, userIds: add }] : []),
        ...(remove.length > 0 ? [{ kind: 'remove' as const, userIds: remove }] : []),
      ];
      if (changes.length > 0) await this.groups.edit(this.run.editorUserId, this.run.orgId, groupId, changes);
      await this.uow.run((manager) => this.objects.remember(manager, 'group', [{ sourceId: group.sourceId, targetId: groupId, fingerprint }]));
    }
    this.tally.count('group', 'updated');
  }
}
