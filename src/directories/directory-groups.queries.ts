import type { EntityManager } from 'typeorm';

/** The SQL of `directory_groups` (src/directories owns it): which Portcullis group each directory group is. */

export interface DirectoryGroupRow {
  directoryId: string;
  externalId: string;
  groupId: string;
  dn: string;
  syncedAt: number;
}

interface RawDirectoryGroup {
  directory_id: string;
  external_id: string;
  group_id: string;
  dn: string;
  synced_at: number | string;
}

const COLUMNS = 'directory_id, external_id, group_id, dn, synced_at';

function rowOf(raw: RawDirectoryGroup): DirectoryGroupRow {
  return { directoryId: raw.directory_id, externalId: raw.external_id, groupId: raw.group_id, dn: raw.dn, syncedAt: Number(raw.synced_at) };
}

export async function groupLinksOf(manager: EntityManager, directoryId: string): Promise<DirectoryGroupRow[]> {
  const rows: RawDirectoryGroup[] = await manager.query(`SELECT ${COLUMNS} FROM directory_groups WHERE directory_id = ?`, [directoryId]);
  return rows.map(rowOf);
}

export async function groupLinkOf(manager: EntityManager, groupId: string): Promise<DirectoryGroupRow | undefined> {
  const rows: RawDirectoryGroup[] = await manager.query(`SELECT ${COLUMNS} FROM directory_groups WHERE group_id = ?`, [groupId]);
  return rows[0] && rowOf(rows[0]);
}

export async function insertGroupLink(manager: EntityManager, link: DirectoryGroupRow): Promise<void> {
  await manager.query(`INSERT INTO directory_groups (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`, [
    link.directoryId,
    link.externalId,
    link.groupId,
    link.dn,
    link.syncedAt,
  ]);
}

export async function updateGroupLink(manager: EntityManager, link: DirectoryGroupRow): Promise<void> {
  await manager.query('UPDATE directory_groups SET dn = ?, synced_at = ? WHERE directory_id = ? AND external_id = ?', [
    link.dn,
    link.syncedAt,
    link.directoryId,
    link.externalId,
  ]);
}

export async function deleteGroupLink(manager: EntityManager, directoryId: string, externalId: string): Promise<void> {
  await manager.query('DELETE FROM directory_groups WHERE directory_id = ? AND external_id = ?', [directoryId, externalId]);
}
