import type { Client } from 'ldapts';
import type { DirectoryType } from './directory-settings.js';

/**
 * Where the last sync left a directory, so that the next asks only for what changed since (docs/directories.md,
 * "Incremental syncs"): on OpenLDAP a `modifyTimestamp` (RFC 4512 §3.4; every LDAP server keeps it, entryCSN only
 * OpenLDAP), on Active Directory the `highestCommittedUSN` of the domain controller read, with that DC's name:
 * update sequence numbers are a DC's own, so another DC's cursor means nothing and the sync is full.
 */
export type SyncCursor = { kind: 'modifyTimestamp'; since: string } | { kind: 'usn'; server: string; usn: string };

/** AD's position when a sync begins: read first, so every change made while the sync runs is above it. */
export interface ServerPosition {
  server: string;
  usn: string;
}

const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:[.,]\d+)?Z$/;

export function parseCursor(text: string | null): SyncCursor | undefined {
  if (!text) return undefined;
  try {
    const cursor = JSON.parse(text) as SyncCursor;
    if (cursor.kind === 'modifyTimestamp' && GENERALIZED_TIME.test(cursor.since)) return cursor;
    if (cursor.kind === 'usn' && /^\d+$/.test(cursor.usn) && typeof cursor.server === 'string') return cursor;
  } catch {
    // A cursor that cannot be read is a lost cursor: the sync is full.
  }
  return undefined;
}

/** AD's root DSE names the DC (`dsServiceName`) and its highest USN ([MS-ADTS] 3.1.1.3.2); other servers, nothing. */
export async function serverPosition(client: Client, type: DirectoryType): Promise<ServerPosition | undefined> {
  if (type !== 'active-directory') return undefined;
  const { searchEntries } = await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['dsServiceName', 'highestCommittedUSN'] });
  const root = searchEntries[0];
  const server = root && String([root.dsServiceName].flat()[0] ?? '');
  const usn = root && String([root.highestCommittedUSN].flat()[0] ?? '');
  return server && /^\d+$/.test(usn) ? { server, usn } : undefined;
}

/**
 * The user filter narrowed to what changed since the cursor, or undefined when the cursor cannot be used (none, lost,
 * or another DC's): then the sync is full. The cursor's values are digits and a time the sync itself wrote.
 */
export function changedFilter(userFilter: string, cursor: SyncCursor | undefined, position: ServerPosition | undefined): string | undefined {
  if (cursor?.kind === 'modifyTimestamp' && position === undefined) return `(&${userFilter}(modifyTimestamp>=${cursor.since}))`;
  if (cursor?.kind === 'usn' && position && cursor.server === position.server) return `(&${userFilter}(uSNChanged>=${BigInt(cursor.usn) + 1n}))`;
  return undefined;
}

/**
 * The latest `modifyTimestamp` a sync saw, and from it the next cursor. The directory's clock is not Portcullis's,
 * and an entry changed while the sync paged past it carries a time later than the sync's start but perhaps earlier
 * than the latest seen: so the cursor is the latest time seen less the sync's own duration and a second (the
 * attribute's precision). Whatever changed since the sync began is at or after it; a few entries are read twice.
 */
export class Timestamps {
  private latest = 0;
  private readonly began = Date.now();

  see(value: unknown): void {
    const match = GENERALIZED_TIME.exec(String([value].flat()[0] ?? ''));
    if (!match) return;
    const [, y, mo, d, h, mi, s] = match.map(Number);
    this.latest = Math.max(this.latest, Date.UTC(y, mo - 1, d, h, mi, s));
  }

  next(previous: SyncCursor | undefined): SyncCursor | undefined {
    const before = previous?.kind === 'modifyTimestamp' ? previous.since : undefined;
    if (this.latest === 0) return before ? previous : undefined;
    const since = generalizedTime(this.latest - (Date.now() - this.began) - 1000);
    return { kind: 'modifyTimestamp', since: before && before > since ? before : since };
  }
}

function generalizedTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace(/[-T:]/g, '')}Z`;
}
