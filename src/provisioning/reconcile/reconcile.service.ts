import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { lastEventPosition } from '../../common/events/event-log.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { organizationExists } from '../../users/queries/organizations.js';
import { targetsOf } from '../provisioning.queries.js';
import type { ObjectRow, TargetRow } from '../provisioning.queries.js';
import { requestTimeoutOf } from '../provisioning-settings.js';
import { endpointOf, scimFetch } from '../scim-client.js';
import { LocalPeople } from './local-people.js';
import { PLAN_ACTIONS, planOf } from './reconcile-plan.js';
import type { ReconcilePlan } from './reconcile-plan.js';
import { replaceMembers, recordedMembers } from '../pusher/membership-record.queries.js';
import { wantedGroup } from '../pusher/outbound-group.js';
import { ProvisionedGroups } from '../pusher/provisioned-groups.js';
import { ProvisionedUsers } from '../pusher/provisioned-users.js';
import { markDirty } from '../pusher/pusher.queries.js';
import { GROUP_PLAN_ACTIONS, planGroups } from './group-plan.js';
import type { GroupPlan, LocalGroup } from './group-plan.js';
import { knownGroupIds, knownUserIds, objectOf } from './reconcile.queries.js';
import { RemoteGroupReader } from './remote-groups.js';
import { readRemoteUsers } from './remote-users.js';

/** A reconcile's plan: its users, its groups, and the record of each group's members as read from the target. */
export interface TargetPlan extends ReconcilePlan {
  groups: GroupPlan;
  records: Map<string, string[]>;
}

/**
 * Reconcile and retry (docs/provisioning.md, "Reconcile"). The plan is made in the request: the target's
 * Users are read page by page (at most RECONCILE_LIMIT, each request under the target's request timeout) and
 * compared with the organization's people. A real reconcile then marks the plan's users dirty, with its event, in one transaction;
 * the target's pusher does the writing, one request at a time, as for any change.
 */
@Injectable()
export class ProvisioningReconcile {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly encryptor: Encryptor,
    private readonly events: EventStore,
    private readonly people: LocalPeople,
    private readonly users: ProvisionedUsers,
    private readonly groups: ProvisionedGroups,
  ) {}

  /** What a reconcile would do; changes nothing (only GET requests reach the target). */
  async plan(orgId: string, targetId: string): Promise<TargetPlan> {
    return this.planFor(await this.target(orgId, targetId));
  }

  /** Plans, then marks every user of the plan dirty with the `provisioning.reconcile.requested` event. */
  async reconcile(editorUserId: string | null, orgId: string, targetId: string): Promise<{ runId: string }> {
    const target = await this.target(orgId, targetId);
    const plan = await this.planFor(target);
    const runId = newId();
    const counts = {
      ...Object.fromEntries(PLAN_ACTIONS.map((action) => [action, plan[action].length])),
      groups: Object.fromEntries(GROUP_PLAN_ACTIONS.map((action) => [action, plan.groups[action].length])),
    };
    await this.uow.run(async (manager) => {
      if ((await targetsOf(manager, orgId, targetId)).length === 0) throw DomainError.notFound('provisioning target');
      await this.events.push(manager, {
        type: 'provisioning.reconcile.requested',
        aggregateType: 'provisioning_target',
        aggregateId: targetId,
        resourceOwner: orgId,
        editorUserId,
        payload: { runId, ...counts },
      });
      // Each user is pushed to the remote user the plan found (adopted, updated, removed), or created: this run only
      // adopts by userName; a namesake found by a later push is a conflict as before (pusher/user-push.ts).
      const items = PLAN_ACTIONS.flatMap((action) => plan[action]);
      const position = await lastEventPosition(manager);
      await markDirty(manager, targetId, 'user', new Map(items.map((i) => [i.localId, position])), new Map(items.map((i) => [i.localId, i.remoteId])));
      // The record of each group's members is what the target was found to list; the groups of the plan are pushed
      // from it (pusher/group-push.ts).
      for (const [groupId, members] of plan.records) await replaceMembers(manager, targetId, groupId, members);
      const groups = GROUP_PLAN_ACTIONS.flatMap((action) => plan.groups[action]);
      await markDirty(manager, targetId, 'group', new Map(groups.map((g) => [g.localId, position])), new Map(groups.map((g) => [g.localId, g.remoteId])));
    });
    return { runId };
  }

  /** Pushes one object again from the start, with the `provisioning.retry.requested` event; 404 when the target does not know it. */
  async retry(editorUserId: string | null, orgId: string, targetId: string, kind: 'user' | 'group', localId: string): Promise<ObjectRow> {
    await this.target(orgId, targetId);
    return this.uow.run(async (manager) => {
      if (!(await objectOf(manager, targetId, kind, localId))) throw DomainError.notFound('provisioning object');
      await this.events.push(manager, {
        type: 'provisioning.retry.requested',
        aggregateType: 'provisioning_target',
        aggregateId: targetId,
        resourceOwner: orgId,
        editorUserId,
        payload: { kind, localId },
      });
      // Pushed again from the start at the retry's event: a push in flight meanwhile ends pending, and the object is
      // pushed once more with its current state.
      await markDirty(manager, targetId, kind, new Map([[localId, await lastEventPosition(manager)]]));
      return (await objectOf(manager, targetId, kind, localId))!;
    });
  }

  private async planFor(target: TargetRow): Promise<TargetPlan> {
    const endpoint = endpointOf(target, (sealed) => this.encryptor.decrypt(sealed));
    const fetch = scimFetch(this.config.outboundAllowPrivateNetworks, requestTimeoutOf(target.settings));
    const remote = await readRemoteUsers(endpoint, fetch);
    const people = await this.people.of(target.orgId, target.settings);
    const users = planOf(remote, people, await knownUserIds(this.uow.manager, target.id), target.settings.onRemove);
    return {
      ...users,
      ...(await this.groupPlanFor(
        target,
        endpoint,
        fetch,
        remote.map((user) => user.id),
      )),
    };
  }

  /**
   * The groups (docs/provisioning.md, "Reconcile"): the target's groups read page by page without members, compared
   * by name and externalId; and each of ours there, its members as the target lists them — read one by one among
   * those it should list and those recorded, then among the target's other users (`remoteUserIds`, many a read), so
   * that a member added there by someone else is found too — the record rebuilt from that. The push then removes
   * whom the record lists and the group should not.
   */
  private async groupPlanFor(
    target: TargetRow,
    endpoint: ReturnType<typeof endpointOf>,
    fetch: ReturnType<typeof scimFetch>,
    remoteUserIds: readonly string[],
  ): Promise<{ groups: GroupPlan; records: Map<string, string[]> }> {
    const manager = this.uow.manager;
    const known = await knownGroupIds(manager, target.id);
    const records = new Map<string, string[]>();
    if (target.settings.pushGroups === 'none' && known.size === 0) return { groups: { create: [], update: [], delete: [] }, records };
    const reader = await RemoteGroupReader.open(endpoint, fetch);
    const remote = await reader.groups();
    const local: LocalGroup[] = [];
    for (const id of await this.groups.idsOf(target.orgId)) {
      const wanted = await wantedGroup({ users: this.users, groups: this.groups, manager }, target, id);
      local.push({ id, doc: wanted.kind === 'group' ? wanted.doc : undefined, held: wanted.kind === 'held' });
    }
    const byExternalId = new Map(remote.filter((g) => g.externalId !== undefined).map((g) => [g.externalId!, g]));
    const membersDiffer = new Set<string>();
    for (const group of local) {
      const there = byExternalId.get(group.id);
      if (!group.doc || !there) continue;
      const candidates = new Set([...group.doc.members, ...(await recordedMembers(manager, target.id, group.id))]);
      const present = await reader.membersAmong(there.id, candidates);
      const added =
        present &&
        (await reader.othersAmong(
          there.id,
          remoteUserIds.filter((id) => !candidates.has(id)),
        ));
      if (!present || !added) continue;
      for (const id of added) present.add(id);
      records.set(group.id, [...present]);
      if (present.size !== group.doc.members.length || group.doc.members.some((id) => !present.has(id))) membersDiffer.add(group.id);
    }
    return { groups: planGroups(remote, local, known, membersDiffer), records };
  }

  private async target(orgId: string, targetId: string): Promise<TargetRow> {
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    const [row] = await targetsOf(this.uow.manager, orgId, targetId);
    if (!row) throw DomainError.notFound('provisioning target');
    return row;
  }
}
