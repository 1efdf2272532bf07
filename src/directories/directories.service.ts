import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { JsonObject } from '../common/database/columns.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { DataSource } from 'typeorm';
import { organizationExists } from '../users/queries/organizations.js';
import { assertHostAllowed } from './directory-connection.js';
import { parseHostEntry } from './directory-hosts.js';
import type { HostEntry } from './directory-hosts.js';
import { assertSupported, assertTransport, DEFAULT_SYNC_INTERVAL_MINUTES, DEFAULTS, invalid } from './directory-settings.js';
import type { AttributeMapping, DirectorySettings, DirectoryType, PasswordCheck } from './directory-settings.js';
import {
  deleteDirectory,
  directoriesOf,
  directoryById,
  directoryHosts,
  insertDirectory,
  linkOfUser,
  replaceDirectoryHosts,
  updateDirectory,
} from './directories.queries.js';
import type { DirectoryRow } from './directories.queries.js';
import { unlinkAllIn } from './directory-links.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import { PasswordlessUsers } from '../users/passwordless-users.js';

/** What `POST …/directories` and `PATCH …/directories/{id}` carry (api/directories.dto.ts). */
export interface DirectoryInput {
  type?: DirectoryType;
  name?: string;
  url?: string;
  startTls?: boolean;
  caCertificate?: string | null;
  bindDn?: string;
  bindPassword?: string;
  usersDn?: string;
  userFilter?: string;
  groupsDn?: string | null;
  groupFilter?: string;
  attributes?: Partial<AttributeMapping>;
  sync?: { intervalMinutes?: number };
  passwordCheck?: PasswordCheck;
  writeBack?: boolean;
  jit?: boolean;
}

/** A directory as the API shows it: never the bind password. */
export interface DirectoryView extends Omit<DirectorySettings, 'caCertificate'> {
  id: string;
  type: DirectoryType;
  name: string;
  caCertificate: string | null;
  createdAt: string;
  changedAt: string;
}

/** A directory with what a connection needs, for the sync and the test (never leaves the service). */
export interface DirectoryTarget {
  row: DirectoryRow;
  type: DirectoryType;
  settings: DirectorySettings;
  bindPassword: string;
  allow: HostEntry[];
}

/**
 * An organization's LDAP and Active Directory directories (docs/directories.md), created, read, changed and removed by
 * its ORG_OWNER, each change with its event (never the bind password, which is kept encrypted); and the instance's
 * list of hosts directories may reach, kept by an IAM_OWNER. A directory's URL is checked against that list before
 * anything connects to it.
 */
@Injectable()
export class DirectoriesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly lifecycle: UserLifecycleService,
    private readonly access: UserAccess,
    orgResources: OrgResources,
    passwordless: PasswordlessUsers,
  ) {
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
    // A directory's person signs in as its directory says, passkeys-only organization or not (docs/directories.md).
    passwordless.register(async (manager, userId) => (await linkOfUser(manager, userId)) !== undefined);
  }

  async create(editorUserId: string | null, orgId: string, input: DirectoryInput): Promise<{ id: string }> {
    await this.assertOrg(orgId);
    const type = input.type ?? 'ldap';
    const settings = settingsOf(type, input, undefined);
    assertTransport(settings);
    assertSupported(settings);
    await assertHostAllowed(await this.allowList(), settings.url);
    const now = Date.now();
    const row: DirectoryRow = {
      id: newId(),
      orgId,
      type,
      name: input.name!.trim(),
      settings: JSON.stringify(settings),
      bindPassword: this.encryptor.encrypt(input.bindPassword!),
      syncCursor: null,
      nextSyncAt: settings.sync.intervalMinutes > 0 ? now : 0,
      createdAt: now,
      changedAt: now,
    };
    await this.uow.run(async (manager) => {
      await insertDirectory(manager, row);
      await this.event(manager, editorUserId, row, 'org.directory.added', payloadOf(row, settings));
    });
    return { id: row.id };
  }

  async list(orgId: string): Promise<DirectoryView[]> {
    await this.assertOrg(orgId);
    return (await directoriesOf(this.uow.manager, orgId)).map(viewOf);
  }

  async get(orgId: string, directoryId: string): Promise<DirectoryView> {
    return viewOf(await this.find(this.uow.manager, orgId, directoryId));
  }

  async change(editorUserId: string | null, orgId: string, directoryId: string, input: DirectoryInput): Promise<DirectoryView> {
    const before = await this.find(this.uow.manager, orgId, directoryId);
    if (input.type !== undefined && input.type !== before.type) throw invalid('type', 'type cannot change; add a new directory instead');
    const type = before.type as DirectoryType;
    const settings = settingsOf(type, input, JSON.parse(before.settings) as DirectorySettings);
    assertTransport(settings);
    assertSupported(settings);
    await assertHostAllowed(await this.allowList(), settings.url);
    const previous = JSON.parse(before.settings) as DirectorySettings;
    const interval = settings.sync.intervalMinutes;
    const row: DirectoryRow = {
      ...before,
      name: input.name?.trim() ?? before.name,
      settings: JSON.stringify(settings),
      bindPassword: input.bindPassword === undefined ? before.bindPassword : this.encryptor.encrypt(input.bindPassword),
      // Another server, another part of the tree or another mapping: the cursor means nothing there, the next sync is full.
      syncCursor: sameSource(settings, previous) ? before.syncCursor : null,
      nextSyncAt: interval === 0 ? 0 : before.nextSyncAt === 0 ? Date.now() : before.nextSyncAt,
      changedAt: Date.now(),
    };
    await this.uow.run(async (manager) => {
      await updateDirectory(manager, row);
      await this.event(manager, editorUserId, row, 'org.directory.changed', {
        ...payloadOf(row, settings),
        ...(input.bindPassword !== undefined ? { bindPasswordChanged: true } : {}),
      });
    });
    return viewOf(row);
  }

  /** Removes the directory; its users stay, as local users, inactive until linked again or removed. */
  async remove(editorUserId: string | null, orgId: string, directoryId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      const row = await this.find(manager, orgId, directoryId);
      await this.removeIn(manager, editorUserId, row);
    });
  }

  /** The directory with its decrypted bind password and the allow-list, for a connection. */
  async target(orgId: string, directoryId: string): Promise<DirectoryTarget> {
    return this.targetOf(await this.find(this.uow.manager, orgId, directoryId));
  }

  async targetOf(row: DirectoryRow): Promise<DirectoryTarget> {
    return {
      row,
      type: row.type as DirectoryType,
      settings: JSON.parse(row.settings) as DirectorySettings,
      bindPassword: this.encryptor.decrypt(row.bindPassword),
      allow: await this.allowList(),
    };
  }

  async hosts(): Promise<{ allow: string[] }> {
    return { allow: await directoryHosts(this.uow.manager) };
  }

  async setHosts(editorUserId: string | null, allow: string[]): Promise<{ allow: string[] }> {
    const entries = allow.map((text, i) => parseHostEntry(text, i).text);
    const duplicate = entries.findIndex((e, i) => entries.findIndex((o) => o.toLowerCase() === e.toLowerCase()) !== i);
    if (duplicate >= 0) throw invalid(`allow[${duplicate}]`, `allow[${duplicate}] is listed twice`);
    await this.uow.run(async (manager) => {
      await replaceDirectoryHosts(manager, entries);
      await this.events.push(manager, {
        type: 'instance.directory_hosts.set',
        aggregateType: 'instance',
        aggregateId: 'instance',
        resourceOwner: 'instance',
        editorUserId,
        payload: { allow: entries },
      });
    });
    return { allow: entries };
  }

  async allowList(): Promise<HostEntry[]> {
    return (await directoryHosts(this.uow.manager)).map((text, i) => parseHostEntry(text, i));
  }

  private async removeIn(manager: EntityManager, editorUserId: string | null, row: DirectoryRow): Promise<void> {
    await unlinkAllIn(manager, { lifecycle: this.lifecycle, access: this.access }, editorUserId, row);
    await deleteDirectory(manager, row.id);
    await this.event(manager, editorUserId, row, 'org.directory.removed', { name: row.name });
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const row of await directoriesOf(manager, orgId)) await this.removeIn(manager, editorUserId, row);
  }

  private async event(
    manager: EntityManager,
    editorUserId: string | null,
    row: DirectoryRow,
    type: 'org.directory.added' | 'org.directory.changed' | 'org.directory.removed',
    payload: JsonObject,
  ): Promise<void> {
    await this.events.push(manager, { type, aggregateType: 'directory', aggregateId: row.id, resourceOwner: row.orgId, editorUserId, payload });
  }

  private async find(manager: EntityManager, orgId: string, directoryId: string): Promise<DirectoryRow> {
    const row = await directoryById(manager, directoryId);
    if (!row || row.orgId !== orgId) throw DomainError.notFound('directory');
    return row;
  }

  private async assertOrg(orgId: string): Promise<void> {
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
  }
}

/** The stored settings after `input` (over `before` on PATCH, over the type's defaults on create). */
function settingsOf(type: DirectoryType, input: DirectoryInput, before: DirectorySettings | undefined): DirectorySettings {
  const defaults = DEFAULTS[type];
  const pick = <K extends keyof DirectorySettings>(key: K, fallback: DirectorySettings[K]): DirectorySettings[K] =>
    (input[key as keyof DirectoryInput] as DirectorySettings[K] | undefined) ?? before?.[key] ?? fallback;
  const groupsDn = input.groupsDn === undefined ? (before?.groupsDn ?? null) : input.groupsDn;
  return {
    url: pick('url', ''),
    startTls: pick('startTls', false),
    caCertificate: input.caCertificate === undefined ? (before?.caCertificate ?? null) : input.caCertificate,
    bindDn: pick('bindDn', ''),
    usersDn: pick('usersDn', ''),
    userFilter: pick('userFilter', defaults.userFilter),
    groupsDn,
    groupFilter: pick('groupFilter', defaults.groupFilter),
    // Only the attributes sent: a DTO's absent keys arrive as undefined and must not erase the stored ones.
    attributes: { ...defaults.attributes, ...before?.attributes, ...definedOf(input.attributes ?? {}) },
    sync: { intervalMinutes: input.sync?.intervalMinutes ?? before?.sync.intervalMinutes ?? DEFAULT_SYNC_INTERVAL_MINUTES },
    passwordCheck: pick('passwordCheck', 'bind'),
    writeBack: pick('writeBack', false),
    jit: pick('jit', false),
  };
}

function definedOf<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Whether what a sync reads is the same after a change (else the next sync is full: unchanged entries read anew). */
function sameSource(after: DirectorySettings, before: DirectorySettings): boolean {
  const keys = ['url', 'usersDn', 'userFilter', 'groupsDn', 'groupFilter'] as const;
  return keys.every((key) => after[key] === before[key]) && JSON.stringify(after.attributes) === JSON.stringify(before.attributes);
}

function viewOf(row: DirectoryRow): DirectoryView {
  const settings = JSON.parse(row.settings) as DirectorySettings;
  return {
    id: row.id,
    type: row.type as DirectoryType,
    name: row.name,
    ...settings,
    createdAt: new Date(row.createdAt).toISOString(),
    changedAt: new Date(row.changedAt).toISOString(),
  };
}

/** An event's payload: the settings, never the bind password (nor the CA, which is long; its presence says enough). */
function payloadOf(row: DirectoryRow, settings: DirectorySettings): JsonObject {
  const { caCertificate, attributes, sync, ...rest } = settings;
  return { type: row.type, name: row.name, ...rest, caPinned: caCertificate !== null, attributes: { ...attributes }, sync: { ...sync } };
}
