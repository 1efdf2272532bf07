import type { EntityManager } from 'typeorm';
import { insertValues } from '../common/database/insert-values.js';

/** The SQL of the directories tables (src/directories owns them; docs/architecture.md, "Data"). */

export interface DirectoryRow {
  id: string;
  orgId: string;
  type: string;
  name: string;
  /** JSON (directory-settings.ts). */
  settings: string;
  /** Encrypted. */
  bindPassword: string;
  syncCursor: string | null;
  nextSyncAt: number;
  createdAt: number;
  changedAt: number;
}

interface RawDirectory {
  id: string;
  org_id: string;
  type: string;
  name: string;
  settings: string;
  bind_password: string;
  sync_cursor: string | null;
  next_sync_at: number | string;
  created_at: number | string;
  changed_at: number | string;
}

const COLUMNS = 'id, org_id, type, name, settings, bind_password, sync_cursor, next_sync_at, created_at, changed_at';

function rowOf(raw: RawDirectory): DirectoryRow {
  return {
    id: raw.id,
    orgId: raw.org_id,
    type: raw.type,
    name: raw.name,
    settings: raw.settings,
    bindPassword: raw.bind_password,
    syncCursor: raw.sync_cursor,
    nextSyncAt: Number(raw.next_sync_at),
    createdAt: Number(raw.created_at),
    changedAt: Number(raw.changed_at),
  };
}

export async function insertDirectory(manager: EntityManager, row: DirectoryRow): Promise<void> {
  await manager.query(`INSERT INTO directories (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.id,
    row.orgId,
    row.type,
    row.name,
    row.settings,
    row.bindPassword,
    row.syncCursor,
    row.nextSyncAt,
    row.createdAt,
    row.changedAt,
  ]);
}

export async function updateDirectory(manager: EntityManager, row: DirectoryRow): Promise<void> {
  await manager.query('UPDATE directories SET name = ?, settings = ?, bind_password = ?, sync_cursor = ?, next_sync_at = ?, changed_at = ? WHERE id = ?', [
    row.name,
    row.settings,
    row.bindPassword,
    row.syncCursor,
    row.nextSyncAt,
    row.changedAt,
    row.id,
  ]);
}

export async function directoriesOf(manager: EntityManager, orgId: string): Promise<DirectoryRow[]> {
  const rows: RawDirectory[] = await manager.query(`SELECT ${COLUMNS} FROM directories WHERE org_id = ? ORDER BY created_at, id`, [orgId]);
  return rows.map(rowOf);
}

export async function directoryById(manager: EntityManager, id: string): Promise<DirectoryRow | undefined> {
  const rows: RawDirectory[] = await manager.query(`SELECT ${COLUMNS} FROM directories WHERE id = ?`, [id]);
  return rows[0] && rowOf(rows[0]);
}

/** Directories whose scheduled sync is due, oldest due first. */
export async function dueDirectories(manager: EntityManager, now: number, limit: number): Promise<DirectoryRow[]> {
  const rows: RawDirectory[] = await manager.query(
    `SELECT ${COLUMNS} FROM directories WHERE next_sync_at > 0 AND next_sync_at <= ? ORDER BY next_sync_at, id LIMIT ${Number(limit)}`,
    [now],
  );
  return rows.map(rowOf);
}

export async function setSyncCursor(manager: EntityManager, id: string, cursor: string | null, nextSyncAt: number): Promise<void> {
  await manager.query('UPDATE directories SET sync_cursor = ?, next_sync_at = ? WHERE id = ?', [cursor, nextSyncAt, id]);
}

/** Removes a directory with its syncs and its links (its users and groups stay, as local ones). */
export async function deleteDirectory(manager: EntityManager, id: string): Promise<void> {
  await manager.query('DELETE FROM directory_syncs WHERE directory_id = ?', [id]);
  await manager.query('DELETE FROM directory_users WHERE directory_id = ?', [id]);
  await manager.query('DELETE FROM directory_groups WHERE directory_id = ?', [id]);
  await manager.query('DELETE FROM directories WHERE id = ?', [id]);
}

// --- the hosts allow-list

export async function directoryHosts(manager: EntityManager): Promise<string[]> {
  const rows: { entry: string }[] = await manager.query('SELECT entry FROM directory_hosts ORDER BY position');
  return rows.map((r) => r.entry);
}

export async function replaceDirectoryHosts(manager: EntityManager, entries: string[]): Promise<void> {
  await manager.query('DELETE FROM directory_hosts');
  await insertValues(
    manager,
    'directory_hosts',
    ['entry', 'position'],
    entries.map((entry, i) => [entry, i]),
  );
}

// --- linked users

export interface DirectoryUserRow {
  directoryId: string;
  externalId: string;
  userId: string;
  dn: string;
  disabled: boolean;
  syncedAt: number;
}

interface RawDirectoryUser {
  directory_id: string;
  external_id: string;
  user_id: string;
  dn: string;
  disabled: number | boolean;
  synced_at: number | string;
}

function linkOf(raw: RawDirectoryUser): DirectoryUserRow {
  return {
    directoryId: raw.directory_id,
    externalId: raw.external_id,
    userId: raw.user_id,
    dn: raw.dn,
    disabled: Boolean(Number(raw.disabled)),
    syncedAt: Number(raw.synced_at),
  };
}

export async function linksOf(manager: EntityManager, directoryId: string): Promise<DirectoryUserRow[]> {
  const rows: RawDirectoryUser[] = await manager.query(
    'SELECT directory_id, external_id, user_id, dn, disabled, synced_at FROM directory_users WHERE directory_id = ?',
    [directoryId],
  );
  return rows.map(linkOf);
}

/** The links of the given stable ids (a page of entries): a sync never holds every link of a large directory. */
export async function linksAmong(manager: EntityManager, directoryId: string, externalIds: readonly string[]): Promise<DirectoryUserRow[]> {
  if (externalIds.length === 0) return [];
  const rows: RawDirectoryUser[] = await manager.query(
    `SELECT directory_id, external_id, user_id, dn, disabled, synced_at FROM directory_users
      WHERE directory_id = ? AND external_id IN (${externalIds.map(() => '?').join(', ')})`,
    [directoryId, ...externalIds],
  );
  return rows.map(linkOf);
}

/** A page of a directory's links in the order of their stable ids, those after `after` (keyset on the primary key). */
export async function linksAfter(manager: EntityManager, directoryId: string, after: string, limit: number): Promise<DirectoryUserRow[]> {
  const rows: RawDirectoryUser[] = await manager.query(
    `SELECT directory_id, external_id, user_id, dn, disabled, synced_at FROM directory_users
      WHERE directory_id = ? AND external_id > ? ORDER BY external_id LIMIT ?`,
    [directoryId, after, limit],
  );
  return rows.map(linkOf);
}

export async function linkOfUser(manager: EntityManager, userId: string): Promise<DirectoryUserRow | undefined> {
  const rows: RawDirectoryUser[] = await manager.query(
    'SELECT directory_id, external_id, user_id, dn, disabled, synced_at FROM directory_users WHERE user_id = ?',
    [userId],
  );
  return rows[0] && linkOf(rows[0]);
}

export async function insertLink(manager: EntityManager, link: DirectoryUserRow): Promise<void> {
  await manager.query('INSERT INTO directory_users (directory_id, external_id, user_id, dn, disabled, synced_at) VALUES (?, ?, ?, ?, ?, ?)', [
    link.directoryId,
    link.externalId,
    link.userId,
    link.dn,
    link.disabled,
    link.syncedAt,
  ]);
}

export async function updateLink(manager: EntityManager, link: DirectoryUserRow): Promise<void> {
  await manager.query('UPDATE directory_users SET dn = ?, disabled = ?, synced_at = ? WHERE directory_id = ? AND external_id = ?', [
    link.dn,
    link.disabled,
    link.syncedAt,
    link.directoryId,
    link.externalId,
  ]);
}

// --- syncs

export interface SyncCounts {
  created: number;
  updated: number;
  deactivated: number;
  reactivated: number;
  unchanged: number;
  failed: number;
}

/** What a sync did to the directory's groups. */
export interface GroupCounts {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  failed: number;
}

export interface SyncRow {
  id: string;
  directoryId: string;
  kind: 'full' | 'incremental';
  state: 'running' | 'finished' | 'failed';
  startedAt: number;
  finishedAt: number | null;
  counts: SyncCounts;
  groups: GroupCounts;
  failures: { dn: string; message: string }[];
}

interface RawSync {
  id: string;
  directory_id: string;
  kind: string;
  state: string;
  started_at: number | string;
  finished_at: number | string | null;
  counts: string;
  group_counts: string | null;
  failures: string;
}

function syncOf(raw: RawSync): SyncRow {
  return {
    id: raw.id,
    directoryId: raw.directory_id,
    kind: raw.kind as SyncRow['kind'],
    state: raw.state as SyncRow['state'],
    startedAt: Number(raw.started_at),
    finishedAt: raw.finished_at === null ? null : Number(raw.finished_at),
    counts: JSON.parse(raw.counts),
    groups: raw.group_counts ? JSON.parse(raw.group_counts) : { created: 0, updated: 0, removed: 0, unchanged: 0, failed: 0 },
    failures: JSON.parse(raw.failures),
  };
}

export async function insertSync(manager: EntityManager, sync: SyncRow): Promise<void> {
  await manager.query(
    'INSERT INTO directory_syncs (id, directory_id, kind, state, started_at, finished_at, counts, group_counts, failures) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      sync.id,
      sync.directoryId,
      sync.kind,
      sync.state,
      sync.startedAt,
      sync.finishedAt,
      JSON.stringify(sync.counts),
      JSON.stringify(sync.groups),
      JSON.stringify(sync.failures),
    ],
  );
}

export async function finishSync(manager: EntityManager, sync: SyncRow): Promise<void> {
  await manager.query('UPDATE directory_syncs SET kind = ?, state = ?, finished_at = ?, counts = ?, group_counts = ?, failures = ? WHERE id = ?', [
    sync.kind,
    sync.state,
    sync.finishedAt,
    JSON.stringify(sync.counts),
    JSON.stringify(sync.groups),
    JSON.stringify(sync.failures),
    sync.id,
  ]);
}

export async function syncsOf(manager: EntityManager, directoryId: string, syncId?: string): Promise<SyncRow[]> {
  const rows: RawSync[] = await manager.query(
    `SELECT id, directory_id, kind, state, started_at, finished_at, counts, group_counts, failures FROM directory_syncs WHERE directory_id = ?${syncId ? ' AND id = ?' : ''} ORDER BY started_at DESC, id DESC LIMIT 100`,
    syncId ? [directoryId, syncId] : [directoryId],
  );
  return rows.map(syncOf);
}
