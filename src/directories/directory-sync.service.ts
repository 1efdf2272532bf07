import { Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Client } from 'ldapts';
import { whileLeased } from '../common/database/leases.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { DirectoriesService } from './directories.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { dueDirectories, finishSync, insertSync, linksAfter, linksAmong, setSyncCursor, syncsOf } from './directories.queries.js';
import type { SyncRow } from './directories.queries.js';
import { DirectoryUnreachable, serviceConnection, unavailable, unreachableOf } from './directory-connection.js';
import { changedFilter, parseCursor, serverPosition, Timestamps } from './directory-cursor.js';
import type { SyncCursor } from './directory-cursor.js';
import { externalIdOf, firstValue, idAttributes, personOf, userPages } from './directory-entries.js';
import type { DirectoryPerson } from './directory-entries.js';
import { DirectoryPeople } from './directory-people.js';
import { DirectoryGroupSync } from './directory-group-sync.js';
import { presence } from './directory-group-entries.js';
import type { Present } from './directory-group-entries.js';

/** How long a sync's lease lasts unrenewed: a process that dies mid-sync frees the directory within it. */
const LEASE_MS = 60_000;
/** At most this many failures are kept per sync (the counts say how many there were). */
const KEPT_FAILURES = 100;
/** Links read at a time when looking for who is gone: a large directory's links are never all held at once. */
const LINKS_PAGE = 1000;
/**
 * People applied in one transaction: a commit (and its garbage) per person was most of a large sync's memory; more
 * would hold SQLite's single writer long enough to delay sign-ins.
 */
const PEOPLE_PER_TRANSACTION = 50;
/** How often each process looks for directories whose scheduled sync is due. */
const SCHEDULE_POLL_MS = Number(process.env.DIRECTORY_SYNC_POLL_MS ?? 30_000);

/**
 * Brings a directory's people into the organization (docs/directories.md, "What a sync does"): a full sync pages
 * through every entry of the user filter (RFC 2696), an incremental one through those changed since the last
 * ("Incremental syncs"); it creates or links a user for each new one by its stable id, updates what
 * changed (following renames and moves: the DN is only remembered), deactivates those disabled in the directory and
 * those gone from it — their sessions and tokens end — and reactivates those re-enabled; then it brings the
 * directory's groups in with their members (directory-group-sync.ts). One sync per directory
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
    private readonly people: DirectoryPeople,
    private readonly groups: DirectoryGroupSync,
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
  async start(editorUserId: string | null, orgId: string, directoryId: string, full = false): Promise<{ syncId: string }> {
    const target = await this.directories.target(orgId, directoryId);
    const sync = newSync(directoryId, full || !parseCursor(target.row.syncCursor) ? 'full' : 'incremental');
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
        const sync = newSync(row.id, parseCursor(row.syncCursor) ? 'incremental' : 'full');
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
    let cursor = parseCursor(target.row.syncCursor);
    try {
      cursor = await this.read(target, sync);
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
      // A failed sync keeps the cursor it started from: the next one asks again for everything since.
      await setSyncCursor(manager, target.row.id, cursor ? JSON.stringify(cursor) : null, interval > 0 ? Date.now() + interval * 60_000 : 0);
      await this.events.push(manager, {
        type: sync.state === 'finished' ? 'directory.sync.finished' : 'directory.sync.failed',
        aggregateType: 'directory',
        aggregateId: target.row.id,
        resourceOwner: target.row.orgId,
        editorUserId: null,
        payload: {
          syncId: sync.id,
          kind: sync.kind,
          counts: { ...sync.counts },
          groups: { ...sync.groups },
          ...(sync.state === 'failed' ? { reason: sync.failures[0].message } : {}),
        },
      });
    });
  }

  /**
   * One sync (docs/directories.md, "What a sync does"): a full one reads every entry of the user filter; an
   * incremental one only those changed since the cursor, then the stable ids of everyone in the filter, since a
   * deletion or an entry leaving the filter shows in no change query. Either way, who is gone is deactivated.
   * Returns the cursor for the next sync.
   */
  private async read(target: DirectoryTarget, sync: SyncRow): Promise<SyncCursor | undefined> {
    const client = await serviceConnection(target.settings, target.bindPassword, target.allow);
    try {
      const position = await serverPosition(client, target.type);
      const changed = sync.kind === 'incremental' ? changedFilter(target.settings.userFilter, parseCursor(target.row.syncCursor), position) : undefined;
      sync.kind = changed ? 'incremental' : 'full';
      const present: Present = new Map();
      const stamps = await this.readPeople(client, target, sync, changed, present);
      if (changed) await presentIds(client, target, present);
      await this.deactivateGone(target, sync, present);
      await this.groups.sync(client, target, present, sync.groups, (failure) => {
        if (sync.failures.length < KEPT_FAILURES) sync.failures.push(failure);
      });
      if (position) return { kind: 'usn', ...position };
      return target.type === 'active-directory' ? undefined : stamps.next(changed ? parseCursor(target.row.syncCursor) : undefined);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /**
   * Reads the entries of the filter (or of the change query) and applies them, PEOPLE_PER_TRANSACTION to a
   * transaction, each person in a savepoint of their own: one that fails is listed and the others are stored.
   */
  private async readPeople(client: Client, target: DirectoryTarget, sync: SyncRow, changed: string | undefined, present: Present): Promise<Timestamps> {
    const stamps = new Timestamps();
    for await (const entries of userPages(client, target.type, target.settings, changed ? { filter: changed } : {})) {
      const people: DirectoryPerson[] = [];
      for (const entry of entries) {
        stamps.see(entry.modifyTimestamp);
        const person = personOf(target.type, target.settings.attributes, entry);
        if ('problem' in person) {
          fail(sync, person.dn, person.problem);
          continue;
        }
        if (!changed) present.set(person.externalId, presence(entry.dn, firstValue(entry, 'uid')));
        people.push(person);
      }
      const links = new Map(
        (
          await linksAmong(
            this.uow.manager,
            target.row.id,
            people.map((person) => person.externalId),
          )
        ).map((link) => [link.externalId, link]),
      );
      for (let i = 0; i < people.length; i += PEOPLE_PER_TRANSACTION) {
        const part = people.slice(i, i + PEOPLE_PER_TRANSACTION);
        const outcomes = await this.uow.runEach(part, (manager, person) => this.people.apply(manager, target, links.get(person.externalId), person));
        for (const [k, outcome] of outcomes.entries()) {
          if (outcome.status === 'fulfilled') {
            sync.counts[outcome.value]++;
            continue;
          }
          const error = outcome.reason;
          fail(sync, part[k].dn, error instanceof DomainError ? error.message : 'could not be stored');
          if (!(error instanceof DomainError)) this.logger.error(`directory sync ${sync.id}: ${part[k].dn}: ${String(error)}`);
        }
      }
    }
    return stamps;
  }

  /** Gone from the directory or out of the filter: deactivated, the link kept so that a return reactivates. */
  private async deactivateGone(target: DirectoryTarget, sync: SyncRow, present: Present): Promise<void> {
    for (let after = ''; ; ) {
      const page = await linksAfter(this.uow.manager, target.row.id, after, LINKS_PAGE);
      for (const link of page) {
        if (present.has(link.externalId)) continue;
        try {
          const outcome = await this.uow.run((manager) => this.people.deactivateGone(manager, target, link));
          if (outcome) sync.counts[outcome]++;
        } catch (error) {
          fail(sync, link.dn, error instanceof DomainError ? error.message : 'could not be deactivated');
        }
      }
      if (page.length < LINKS_PAGE) return;
      after = page[page.length - 1].externalId;
    }
  }
}

/** The stable ids (and DN, uid) of every entry in the user filter now: a cheap pass, one or two attributes each. */
async function presentIds(client: Client, target: DirectoryTarget, present: Present): Promise<void> {
  for await (const entries of userPages(client, target.type, target.settings, { attributes: idAttributes(target.type, target.settings.attributes) })) {
    for (const entry of entries) {
      const id = externalIdOf(target.settings.attributes, entry);
      if (id) present.set(id, presence(entry.dn, firstValue(entry, 'uid')));
    }
  }
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
    groups: { created: 0, updated: 0, removed: 0, unchanged: 0, failed: 0 },
    failures: [],
  };
}

function fail(sync: SyncRow, dn: string, message: string): void {
  sync.counts.failed++;
  if (sync.failures.length < KEPT_FAILURES) sync.failures.push({ dn, message });
}
