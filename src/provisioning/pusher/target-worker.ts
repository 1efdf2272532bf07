import type { JsonObject } from '../../common/database/columns.js';
import { eventsAfter, eventsPast } from '../../common/events/event-log.js';
import type { LoggedEvent } from '../../common/events/event-log.js';
import { provisioningLag, provisioningRequests } from '../../common/metrics/metrics.js';
import { nextRetryAt } from '../../common/operations/retry-schedule.js';
import { StoppableLoop } from '../../common/operations/stoppable-loop.js';
import { targetById } from '../provisioning.queries.js';
import type { TargetRow } from '../provisioning.queries.js';
import { requestTimeoutOf } from '../provisioning-settings.js';
import { authorizationFor, endpointOf, featuresOf, patchOperationsOf, ScimAuthError, scimFetch, scimRequest } from '../scim-client.js';
import type { Fetch, ScimEndpoint } from '../scim-client.js';
import { chosenGroupRemovedAt, groupMarks, markAt, userMarks } from './dirty-marks.js';
import { pushGroup } from './group-push.js';
import type { GroupPushContext, RecordChange } from './group-push.js';
import { forgetMembers, recordedMembers, recordMembers, replaceMembers } from './membership-record.queries.js';
import { wantedGroup } from './outbound-group.js';
import {
  dropMark,
  hasGroups,
  holdTarget,
  markDirty,
  moveCursor,
  nextDirty,
  recordAttempt,
  recordFailure,
  recordHeld,
  recordPushed,
  recordRemoved,
  remarkGroups,
  targetUnchanged,
  userObjectIds,
} from './pusher.queries.js';
import type { DirtyObject } from './pusher.queries.js';
import type { ProvisioningPusher } from './provisioning-pusher.js';
import { answerOf, noAnswer } from './scim-answer.js';
import type { Answer } from './scim-answer.js';
import { declaredPaths } from './outbound-user.js';
import { pushUser } from './user-push.js';
import type { Outcome, UserPushContext } from './user-push.js';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** Events read and marked together. */
const BATCH = 500;
/** How long an idle target waits before it reads the log again. */
const IDLE_MS = 200;

/** The process lost the target's lease (it expired, another process took it): the worker stops at once. */
export class LostLease extends Error {}

/**
 * Pushes one target (docs/provisioning.md, "How it is pushed") while this process holds its lease: reads the organization's events past the
 * target's cursor, marks the objects they touch dirty (moving the cursor in the same transaction), and pushes the
 * dirty objects' current state, oldest change first, one request at a time.
 */
export class TargetWorker extends StoppableLoop {
  private loadedAt = -1;
  private endpoint: ScimEndpoint | undefined;
  private fetch: Fetch | undefined;
  private authorization: { header: string; expiresAt: number } | undefined;
  private patch: { supported: boolean; maxOperations: number } | undefined;
  private declared: { paths: Set<string> | undefined } | undefined;

  constructor(
    private readonly pusher: ProvisioningPusher,
    readonly targetId: string,
  ) {
    super();
  }

  protected async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (await this.step()) await this.pause(IDLE_MS);
      } catch (error) {
        if (this.stopping || error instanceof LostLease) break;
        this.pusher.logError(`provisioning target ${this.targetId}`, error);
        await this.pause(1000);
      }
    }
    this.pusher.forget(this.targetId, this);
  }

  /** One turn; true when there was nothing to do. */
  private async step(): Promise<boolean> {
    const { uow } = this.pusher;
    const target = await targetById(uow.manager, this.targetId);
    if (!target || !target.enabled) {
      this.stopping = true;
      return true;
    }
    if (target.changedAt !== this.loadedAt) this.load(target);
    const events = await eventsPast(uow.manager, target.cursor, target.orgId, BATCH);
    if (events.length > 0) {
      const marks = userMarks(events, target.settings);
      await this.pusher.users.roles.markHolders(events, target.settings, marks);
      const groups = await this.groupsMarkedBy(events, target);
      await this.markLeftWithRemovedGroups(events, target, marks, groups);
      await this.pusher.fenced(this.targetId, async (manager) => {
        await markDirty(manager, this.targetId, 'user', marks);
        await markDirty(manager, this.targetId, 'group', groups);
        await moveCursor(manager, this.targetId, target.cursor, events[events.length - 1].position);
      });
      provisioningLag.set({ target: this.targetId }, await eventsAfter(uow.manager, events[events.length - 1].position, target.orgId));
    } else {
      provisioningLag.set({ target: this.targetId }, 0);
    }
    // A push follows every read of the log, so a busy organization's events never starve its pushes.
    const wait = target.nextAttemptAt - Date.now();
    if (wait > 0) {
      await this.pause(Math.min(wait, 1000));
      return false;
    }
    const object = await nextDirty(uow.manager, this.targetId, Date.now());
    if (!object) return events.length === 0;
    await this.push(target, object);
    return false;
  }

  private load(target: TargetRow): void {
    this.loadedAt = target.changedAt;
    this.endpoint = endpointOf(target, (sealed) => this.pusher.encryptor.decrypt(sealed));
    // Each request waits as long as the target allows (docs/provisioning.md, "Outbound calls"), under a lease that outlasts it.
    const timeoutMs = requestTimeoutOf(target.settings);
    this.fetch = scimFetch(this.pusher.config.outboundAllowPrivateNetworks, timeoutMs);
    this.pusher.timeoutRead(this.targetId, timeoutMs);
    this.authorization = undefined;
    this.patch = undefined;
    this.declared = undefined;
  }

  /**
   * A chosen group removed: its members left the scope without a member event of their own. The target's users that
   * no chosen group holds any more are marked at the removal's position (their push removes them as onRemove says),
   * and, with `pushGroups: "all"`, the other groups that list them (which stop listing them).
   */
  private async markLeftWithRemovedGroups(
    events: readonly LoggedEvent[],
    target: TargetRow,
    users: Map<string, number>,
    groups: Map<string, number>,
  ): Promise<void> {
    const removedAt = chosenGroupRemovedAt(events, target.settings);
    if (removedAt === undefined) return;
    const chosen = new Set(target.settings.scope.groupIds);
    const userIds = await userObjectIds(this.pusher.uow.manager, this.targetId);
    const groupsOf = await this.pusher.groups.groupsOf(userIds);
    for (const userId of userIds) {
      const memberOf = groupsOf.get(userId) ?? [];
      if (memberOf.some((id) => chosen.has(id))) continue;
      markAt(users, userId, removedAt);
      if (target.settings.pushGroups === 'all') for (const groupId of memberOf) markAt(groups, groupId, removedAt);
    }
  }

  /** The groups a run of events marks: their own events, and the groups of members who joined or left a chosen group. */
  private async groupsMarkedBy(events: readonly LoggedEvent[], target: TargetRow): Promise<Map<string, number>> {
    const { marks, movedUsers } = groupMarks(events, target.settings);
    // A target that pushes no groups needs the marks only to delete groups it received before.
    if (target.settings.pushGroups === 'none' && marks.size > 0 && !(await hasGroups(this.pusher.uow.manager, this.targetId))) return new Map();
    if (movedUsers.size === 0) return marks;
    for (const [userId, groupIds] of await this.pusher.groups.groupsOf([...movedUsers.keys()])) {
      for (const groupId of groupIds) markAt(marks, groupId, movedUsers.get(userId)!);
    }
    return marks;
  }

  private async push(target: TargetRow, object: DirtyObject): Promise<void> {
    if (object.kind === 'group') return this.pushGroupObject(target, object);
    // Nothing to bring anywhere — never sent, and not a person of this target (gone, a service user, out of scope):
    // done without a request (the first sync reads the whole log, which names service users and the long gone).
    if (object.remoteId === null && object.attempts === 0 && (await this.currentUser(target, object.localId)) === undefined) {
      return this.pusher.fenced(this.targetId, (manager) => dropMark(manager, this.targetId, object));
    }
    await this.attempt(target, object, async () =>
      pushUser(
        {
          settings: target.settings,
          patch: await this.supportsPatch(),
          declared: await this.userSchema(),
          send: this.sender(),
          current: () => this.currentUser(target, object.localId),
        },
        object.localId,
        object.remoteId,
        object.attempts > 0,
      ),
    );
  }

  /**
   * One attempt of a push: recorded before any request, then its outcome recorded; a request the push depended on
   * that failed is the outcome. Nothing happens when the target changed since this turn read it (recordAttempt).
   */
  private async attempt(target: TargetRow, object: DirtyObject, push: () => Promise<Outcome>): Promise<void> {
    if (!(await this.recordAttempt(target, object))) return;
    let outcome: Outcome;
    try {
      outcome = await push();
    } catch (error) {
      if (error instanceof LostLease || this.stopping) throw error;
      outcome = { kind: 'failed', answer: error instanceof ScimRequestFailed ? error.answer : noAnswer(error) };
    }
    await this.record(target, object, outcome);
  }

  /**
   * Records the attempt before any request (docs/provisioning.md, "How it is pushed"); false, recording nothing, when the target was disabled or
   * changed since this turn read it: it gets nothing more under its old settings, the next turn reads it again (an
   * owner who disabled it must see no request start after the answer).
   */
  private async recordAttempt(target: TargetRow, object: DirtyObject): Promise<boolean> {
    let current = false;
    await this.pusher.fenced(this.targetId, async (manager) => {
      current = await targetUnchanged(manager, this.targetId, target.changedAt);
      if (current) await recordAttempt(manager, this.targetId, object, Date.now());
    });
    return current;
  }

  private async pushGroupObject(target: TargetRow, object: DirtyObject): Promise<void> {
    const wanted = await wantedGroup({ users: this.pusher.users, groups: this.pusher.groups, manager: this.pusher.uow.manager }, target, object.localId);
    if (wanted.kind === 'held') {
      const nextAttemptAt = wanted.status === 'pending' ? Date.now() + heldBackPoll(this.pusher.config.provisioning.retryBaseMs) : 0;
      return this.pusher.fenced(this.targetId, (manager) =>
        recordHeld(manager, this.targetId, object, { status: wanted.status, error: wanted.error, nextAttemptAt }),
      );
    }
    // Never sent and not a group of this target (gone, or not pushed here): done without a request.
    if (wanted.kind === 'none' && object.remoteId === null && object.attempts === 0)
      return this.pusher.fenced(this.targetId, (manager) => dropMark(manager, this.targetId, object));
    await this.attempt(target, object, async () =>
      pushGroup(
        await this.groupContext(object.localId),
        object.localId,
        object.remoteId,
        object.attempts > 0,
        wanted.kind === 'group' ? wanted.doc : undefined,
      ),
    );
  }

  /** A group's push reads and keeps the record of the members the target was sent (docs/provisioning.md, "Groups"). */
  private async groupContext(groupId: string): Promise<GroupPushContext> {
    await this.supportsPatch();
    return {
      patch: this.patch!.supported,
      maxOperations: this.patch!.maxOperations,
      send: this.sender(),
      membersPerPatch: this.pusher.config.provisioning.membersPerPatch,
      recorded: () => recordedMembers(this.pusher.uow.manager, this.targetId, groupId),
      record: (change: RecordChange) =>
        this.pusher.fenced(this.targetId, (manager) =>
          'all' in change
            ? replaceMembers(manager, this.targetId, groupId, change.all)
            : 'added' in change
              ? recordMembers(manager, this.targetId, groupId, change.added)
              : forgetMembers(manager, this.targetId, groupId, change.removed),
        ),
    };
  }

  private async record(target: TargetRow, object: DirtyObject, outcome: Outcome): Promise<void> {
    const { config } = this.pusher;
    const now = Date.now();
    // A user the target gave a new id: the groups that list it (or waited for it) are pushed again.
    const relisted =
      object.kind === 'user' && outcome.kind === 'pushed' && outcome.remoteId !== object.remoteId && target.settings.pushGroups !== 'none'
        ? ((await this.pusher.groups.groupsOf([object.localId])).get(object.localId) ?? [])
        : [];
    await this.pusher.fenced(this.targetId, async (manager) => {
      if (outcome.kind === 'pushed') {
        await recordPushed(manager, this.targetId, object, outcome.remoteId, outcome.status, now);
        return remarkGroups(manager, this.targetId, relisted, object.dirtyPosition);
      }
      if (outcome.kind === 'removed') {
        if (object.kind === 'group') await replaceMembers(manager, this.targetId, object.localId, []);
        return recordRemoved(manager, this.targetId, object, now);
      }
      if (outcome.kind === 'conflict')
        return recordFailure(manager, this.targetId, object, { status: 'conflict', lastStatus: outcome.status, error: outcome.error });
      const answer = outcome.answer;
      const lastStatus = 'status' in answer && answer.status !== undefined ? answer.status : null;
      switch (answer.kind) {
        case 'auth': {
          // The whole target waits (its credentials are wrong); the object keeps its place.
          await recordFailure(manager, this.targetId, object, { status: 'pending', lastStatus, error: answer.error });
          return holdTarget(manager, this.targetId, 'auth_failed', now + authBackOff(config.provisioning.retryBaseMs), answer.error);
        }
        case 'rate_limited': {
          await recordFailure(manager, this.targetId, object, { status: 'pending', lastStatus, error: answer.error });
          return holdTarget(manager, this.targetId, target.state, now + (answer.retryAfterMs ?? config.provisioning.retryBaseMs), answer.error);
        }
        case 'invalid':
          return recordFailure(manager, this.targetId, object, { status: 'failing', lastStatus, error: answer.error });
        default: {
          const error = 'error' in answer ? answer.error : `answered ${lastStatus}`;
          const next = nextRetryAt(object.attempts + 1, object.firstAttemptAt ?? now, now, config.provisioning.retryBaseMs, config.provisioning.retryWindowMs);
          return recordFailure(
            manager,
            this.targetId,
            object,
            next === undefined ? { status: 'failing', lastStatus, error } : { status: 'pending', lastStatus, error, nextAttemptAt: next },
          );
        }
      }
    });
  }

  /** The user's document for the target; undefined when it is gone, not a person, or outside the target's scope. */
  private async currentUser(target: TargetRow, userId: string): Promise<JsonObject | undefined> {
    const user = await this.pusher.users.find(target.orgId, userId);
    if (!user) return undefined;
    if (target.settings.scope.users === 'groups' && !(await this.pusher.users.inAnyGroup(userId, target.settings.scope.groupIds))) return undefined;
    return this.pusher.users.document(user, target.settings);
  }

  /** PATCH where the target's ServiceProviderConfig says so (RFC 7643 §5), else PUT; read once per worker and target change. */
  private async supportsPatch(): Promise<boolean> {
    if (this.patch !== undefined) return this.patch.supported;
    const answer = await this.send('GET', '/ServiceProviderConfig', undefined, true);
    if (answer.kind !== 'ok') throw new ScimRequestFailed(answer);
    this.patch = { supported: featuresOf(answer.body).patch, maxOperations: patchOperationsOf(answer.body) };
    return this.patch.supported;
  }

  /**
   * The attribute paths the target's User schema declares (RFC 7643 §7), read once per worker and target change: a
   * cleared attribute is removed only where the target declares it. A target that does not serve the schema gets
   * every removal.
   */
  private async userSchema(): Promise<ReadonlySet<string> | undefined> {
    if (this.declared !== undefined) return this.declared.paths;
    const answer = await this.send('GET', `/Schemas/${USER_SCHEMA}`, undefined, true);
    if (answer.kind === 'auth' || answer.kind === 'rate_limited' || answer.kind === 'retry') throw new ScimRequestFailed(answer);
    this.declared = { paths: answer.kind === 'ok' ? declaredPaths(answer.body) : undefined };
    return this.declared.paths;
  }

  private sender(): UserPushContext['send'] {
    return (method, path, body, expectBody = true) => this.send(method, path, body, expectBody);
  }

  /** One request, under the lease; an OAuth token refused with 401 is renewed once and the request sent again. */
  private async send(method: string, path: string, body: unknown, expectBody: boolean, renewed = false): Promise<Answer> {
    const fetch = this.fetch!;
    if (!this.pusher.sendable(this.targetId)) throw new LostLease();
    let answer: Answer;
    try {
      if (!this.authorization || this.authorization.expiresAt <= Date.now()) this.authorization = await authorizationFor(this.endpoint!, fetch);
      if (!this.pusher.sendable(this.targetId)) throw new LostLease();
      // An answer whose body is not read is not buffered: a target may answer a PATCH with a group of 20,000 members.
      answer = await answerOf(await scimRequest(this.endpoint!, fetch, this.authorization.header, method, path, body, !expectBody), expectBody);
    } catch (error) {
      if (error instanceof LostLease) throw error;
      answer = error instanceof ScimAuthError ? { kind: 'auth', status: 401, error: error.message } : noAnswer(error);
    }
    provisioningRequests.inc({ result: answer.kind });
    if (answer.kind === 'auth' && answer.status === 401 && this.endpoint!.auth.type === 'oauth_client_credentials' && !renewed) {
      this.authorization = undefined;
      return this.send(method, path, body, expectBody, true);
    }
    return answer;
  }
}

/** A request the push depends on failed; the push ends with that answer. */
class ScimRequestFailed extends Error {
  constructor(readonly answer: Exclude<Answer, { kind: 'ok' }>) {
    super('error' in answer ? answer.error : `answered ${answer.status}`);
  }
}

/** How often a group that waits for members looks again, besides being pushed when one of them arrives. */
function heldBackPoll(retryBaseMs: number): number {
  return 12 * retryBaseMs;
}

/** How long a target whose credentials were refused waits: twelve retry bases (a minute by default). */
function authBackOff(retryBaseMs: number): number {
  return 12 * retryBaseMs;
}
