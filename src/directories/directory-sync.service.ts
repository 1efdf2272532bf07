import { Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { whileLeased } from '../common/database/leases.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import type { UserEntity } from '../users/entities/user.entity.js';
import { linkCandidates } from '../users/queries/link-candidates.js';
import { verifiedByAnother } from '../users/queries/verified-emails.js';
import { isInactive } from '../users/rules/user-state.js';
import type { HumanChanges } from '../users/user-edit.service.js';
import { UserEditService } from '../users/user-edit.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { UsersService } from '../users/users.service.js';
import { DirectoriesService } from './directories.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { dueDirectories, finishSync, insertLink, insertSync, linksOf, setSyncCursor, syncsOf, updateLink } from './directories.queries.js';
import type { DirectoryUserRow, SyncCounts, SyncRow } from './directories.queries.js';
import { DirectoryUnreachable, serviceConnection, unavailable, unreachableOf } from './directory-connection.js';
import { personOf, userPages } from './directory-entries.js';
import type { DirectoryPerson } from './directory-entries.js';

/** How long a sync's lease lasts unrenewed: a process that dies mid-sync frees the directory within it. */
const LEASE_MS = 60_000;
/** At most this many failures are kept per sync (the counts say how many there were). */
const KEPT_FAILURES = 100;
/** How often each process looks for directories whose scheduled sync is due. */
const SCHEDULE_POLL_MS = Number(process.env.DIRECTORY_SYNC_POLL_MS ?? 30_000);

type Outcome = keyof SyncCounts;

/**
 * Brings a directory's people into the organization (docs/directories.md, "Sync"): a full sync pages through every
 * entry of the user filter (RFC 2696), creates or links a user for each new one by its stable id, updates what
 * changed (following renames and moves: the DN is only remembered), deactivates those disabled in the directory and
 * those gone from it — their sessions and tokens end — and reactivates those re-enabled. One sync per directory
 * runs at a time across processes (a lease); each person's change and its events share one transaction, so a sync
 * that dies leaves no half a user, and the next one picks up from the directory's state.
 */
@Injectable()
export class DirectorySync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DirectorySync.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly directories: DirectoriesService,
    private readonly users: UsersService,
    private readonly edits: UserEditService,
    private readonly lifecycle: UserLifecycleService,
    private readonly access: UserAccess,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runDue(), SCHEDULE_POLL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Starts a sync now (the API's `POST …/sync`); 409 while one runs. The sync goes on after the answer. */
  async start(editorUserId: string | null, orgId: string, directoryId: string): Promise<{ syncId: string }> {
    const target = await this.directories.target(orgId, directoryId);
    const sync = newSync(directoryId, 'full');
    let began!: () => void;
    const started = new Promise<void>((resolve) => (began = resolve));
    const run = whileLeased(this.uow, `directory-sync:${directoryId}`, LEASE_MS, async () => {
      await this.begin(editorUserId, target, sync);
      began();
      await this.sync(target, sync);
    });
    this.running = run.catch((error) => this.logger.error(`directory sync ${sync.id} failed: ${String(error)}`));
    const taken = await Promise.race([started.then(() => true), run.then((result) => result !== undefined)]);
    if (!taken) throw new DomainError(ErrorCode.Conflict, 'a sync of this directory is running; try again when it has finished');
    return { syncId: sync.id };
  }

  async list(orgId: string, directoryId: string): Promise<SyncRow[]> {
    await this.directories.get(orgId, directoryId);
    return syncsOf(this.uow.manager, directoryId);
  }

  async get(orgId: string, directoryId: string, syncId: string): Promise<SyncRow> {
    await this.directories.get(orgId, directoryId);
    const [sync] = await syncsOf(this.uow.manager, directoryId, syncId);
    if (!sync) throw DomainError.notFound('sync');
    return sync;
  }

  /** Runs the scheduled syncs that are due, each under its lease (every process polls; one runs each). */
  async runDue(): Promise<void> {
    try {
      for (const row of await dueDirectories(this.uow.manager, Date.now(), 10)) {
        const target = await this.directories.targetOf(row);
        const sync = newSync(row.id, 'full');
        await whileLeased(this.uow, `directory-sync:${row.id}`, LEASE_MS, async () => {
          await this.begin(null, target, sync);
          await this.sync(target, sync);
        });
      }
    } catch (error) {
      this.logger.warn(`scheduled directory sync: ${String(error)}`);
    }
  }

  private async begin(editorUserId: string | null, target: DirectoryTarget, sync: SyncRow): Promise<void> {
    await this.uow.run(async (manager) => {
      await insertSync(manager, sync);
      await this.events.push(manager, {
        type: 'directory.sync.started',
        aggregateType: 'directory',
        aggregateId: target.row.id,
        resourceOwner: target.row.orgId,
        editorUserId,
        payload: { syncId: sync.id, kind: sync.kind },
      });
    });
  }

  private async sync(target: DirectoryTarget, sync: SyncRow): Promise<void> {
    try {
      await this.fullSync(target, sync);
      sync.state = 'finished';
    } catch (error) {
      sync.state = 'failed';
      const reason = error instanceof DirectoryUnreachable ? unavailable(error).message : unreachableOf(error).message;
      sync.failures.unshift({ dn: target.settings.url, message: reason });
    }
    sync.finishedAt = Date.now();
    const interval = target.settings.sync.intervalMinutes;
    await this.uow.run(async (manager) => {
      await finishSync(manager, sync);
      await setSyncCursor(manager, target.row.id, target.row.syncCursor, interval > 0 ? Date.now() + interval * 60_000 : 0);
      await this.events.push(manager, {
        type: sync.state === 'finished' ? 'directory.sync.finished' : 'directory.sync.failed',
        aggregateType: 'directory',
        aggregateId: target.row.id,
        resourceOwner: target.row.orgId,
        editorUserId: null,
        payload: { syncId: sync.id, kind: sync.kind, counts: { ...sync.counts }, ...(sync.state === 'failed' ? { reason: sync.failures[0].message } : {}) },
      });
    });
  }

  private async fullSync(target: DirectoryTarget, sync: SyncRow): Promise<void> {
    const client = await serviceConnection(target.settings, target.bindPassword, target.allow);
    const links = new Map((await linksOf(this.uow.manager, target.row.id)).map((link) => [link.externalId, link]));
    const seen = new Set<string>();
    try {
      for await (const entries of userPages(client, target.type, target.settings)) {
        for (const entry of entries) {
          const person = personOf(target.type, target.settings.attributes, entry);
          if ('problem' in person) {
            fail(sync, person.dn, person.problem);
            continue;
          }
          seen.add(person.externalId);
          try {
            sync.counts[await this.uow.run((manager) => this.applyPerson(manager, target, links.get(person.externalId), person))]++;
          } catch (error) {
            fail(sync, person.dn, error instanceof DomainError ? error.message : 'could not be stored');
            if (!(error instanceof DomainError)) this.logger.error(`directory sync ${sync.id}: ${person.dn}: ${String(error)}`);
          }
        }
      }
    } finally {
      await client.unbind().catch(() => undefined);
    }
    // Gone from the directory or out of the filter: deactivated, the link kept so that a return reactivates.
    for (const link of links.values()) {
      if (seen.has(link.externalId)) continue;
      try {
        const outcome = await this.uow.run((manager) => this.deactivateGone(manager, target, link));
        if (outcome) sync.counts[outcome]++;
      } catch (error) {
        fail(sync, link.dn, error instanceof DomainError ? error.message : 'could not be deactivated');
      }
    }
  }

  private async applyPerson(manager: EntityManager, target: DirectoryTarget, link: DirectoryUserRow | undefined, person: DirectoryPerson): Promise<Outcome> {
    const now = Date.now();
    const orgId = target.row.orgId;
    if (!link) {
      const userId = await this.newUserFor(manager, target, person);
      const created = userId === undefined;
      const id = userId ?? (await this.create(manager, target, person)).id;
      await insertLink(manager, {
        directoryId: target.row.id,
        externalId: person.externalId,
        userId: id,
        dn: person.dn,
        disabled: person.disabled,
        syncedAt: now,
      });
      const user = await this.users.get(orgId, id, manager);
      if (!created) await this.edits.changeIn(manager, null, user, changesOf(user, person));
      if (person.disabled && !isInactive(user)) await this.lifecycle.deactivateIn(manager, null, user);
      return created ? 'created' : 'updated';
    }
    const user = await this.users.get(orgId, link.userId, manager);
    let outcome: Outcome = 'unchanged';
    const changes = changesOf(user, person);
    if (Object.keys(changes).length > 0) {
      await this.edits.changeIn(manager, null, user, changes);
      outcome = 'updated';
    }
    if (person.disabled && !isInactive(user)) {
      await this.lifecycle.deactivateIn(manager, null, user);
      outcome = 'deactivated';
    } else if (!person.disabled && link.disabled && isInactive(user)) {
      // Only a deactivation the directory caused is undone by it; an administrator's stays.
      await this.lifecycle.reactivateIn(manager, null, user);
      outcome = 'reactivated';
    }
    if (outcome !== 'unchanged' || link.dn !== person.dn || link.disabled !== person.disabled)
      await updateLink(manager, { ...link, dn: person.dn, disabled: person.disabled, syncedAt: now });
    return outcome;
  }

  /**
   * An existing local user of the same name, to link instead of creating one; never a user who holds a role
   * (docs/directories.md: a directory entry must not take over an administrator). Undefined: create one.
   */
  private async newUserFor(manager: EntityManager, target: DirectoryTarget, person: DirectoryPerson): Promise<string | undefined> {
    const [candidate, other] = await linkCandidates(manager, target.row.orgId, 'userName', person.userName);
    if (!candidate) return undefined;
    if (other || candidate.type !== 'human') throw DomainError.alreadyExists(`the user name "${person.userName}" is taken by a user who cannot be linked`);
    const roles = (await this.access.rolesOf(manager, [candidate.id])).get(candidate.id);
    if (roles && (roles.instanceRoles.size > 0 || [...roles.orgRoles.values()].some((r) => r.size > 0)))
      throw DomainError.alreadyExists(`the user name "${person.userName}" belongs to a user who holds a role; such a user is never linked automatically`);
    const linked: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM directory_users WHERE user_id = ?', [candidate.id]);
    if (Number(linked[0].n) > 0) throw DomainError.alreadyExists(`the user name "${person.userName}" belongs to a user linked to another directory entry`);
    return candidate.id;
  }

  private async create(manager: EntityManager, target: DirectoryTarget, person: DirectoryPerson): Promise<UserEntity> {
    const email = person.email ?? '';
    // The directory vouches for its people's addresses, unless another user of the organization holds it verified.
    const verified = email !== '' && !(await verifiedByAnother(manager, target.row.orgId, email, null));
    return this.users.insertHuman(manager, null, target.row.orgId, newId(), {
      userName: person.userName,
      firstName: person.givenName,
      lastName: person.familyName,
      displayName: person.displayName,
      email,
      isEmailVerified: verified,
      phone: null,
      passwordHash: null,
      origin: { source: 'directory', directoryId: target.row.id },
    });
  }

  private async deactivateGone(manager: EntityManager, target: DirectoryTarget, link: DirectoryUserRow): Promise<Outcome | undefined> {
    const user = await this.users.get(target.row.orgId, link.userId, manager).catch(() => undefined);
    if (!user || (isInactive(user) && link.disabled)) return undefined;
    await updateLink(manager, { ...link, disabled: true, syncedAt: Date.now() });
    if (isInactive(user)) return undefined;
    await this.lifecycle.deactivateIn(manager, null, user);
    return 'deactivated';
  }
}

/** What differs between the user and the directory's entry, as a management API change. */
function changesOf(user: UserEntity, person: DirectoryPerson): HumanChanges {
  const changes: HumanChanges = {};
  if (user.userName !== person.userName) changes.userName = person.userName;
  const profile: HumanChanges['profile'] = {};
  if (user.givenName !== person.givenName) profile.firstName = person.givenName;
  if (user.familyName !== person.familyName) profile.lastName = person.familyName;
  if (user.displayName !== person.displayName) profile.displayName = person.displayName;
  if (Object.keys(profile).length > 0) changes.profile = profile;
  if (person.email !== null && user.email !== person.email) changes.email = { email: person.email, isEmailVerified: true };
  return changes;
}

function newSync(directoryId: string, kind: SyncRow['kind']): SyncRow {
  return {
    id: newId(),
    directoryId,
    kind,
    state: 'running',
    startedAt: Date.now(),
    finishedAt: null,
    counts: { created: 0, updated: 0, deactivated: 0, reactivated: 0, unchanged: 0, failed: 0 },
    failures: [],
  };
}

function fail(sync: SyncRow, dn: string, message: string): void {
  sync.counts.failed++;
  if (sync.failures.length < KEPT_FAILURES) sync.failures.push({ dn, message });
}
