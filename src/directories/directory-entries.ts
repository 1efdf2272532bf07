import type { Client, Entry } from 'ldapts';
import type { AttributeMapping, DirectorySettings, DirectoryType } from './directory-settings.js';

/** Entries per page of a paged search (RFC 2696). */
export const PAGE_SIZE = 500;

/** A directory user as Portcullis maps it (docs/directories.md, "Attribute defaults"). */
export interface DirectoryPerson {
  dn: string;
  externalId: string;
  userName: string;
  email: string | null;
  givenName: string;
  familyName: string;
  displayName: string;
  phone: string | null;
  /** AD: userAccountControl bit 2 (ACCOUNTDISABLE); OpenLDAP: a ppolicy lock (pwdAccountLockedTime). */
  disabled: boolean;
}

/** AD's ACCOUNTDISABLE flag of userAccountControl ([MS-ADTS] 2.2.16). */
const ACCOUNTDISABLE = 0x2;

/** The attributes a user search asks for. */
export function userAttributes(type: DirectoryType, mapping: AttributeMapping): string[] {
  // OpenLDAP: the lock, the change time of incremental syncs, and `uid`, which posixGroup's memberUid names.
  const state = type === 'active-directory' ? ['userAccountControl'] : ['pwdAccountLockedTime', 'modifyTimestamp', 'uid'];
  return [...new Set([...Object.values(mapping), ...state])];
}

/** The attributes of the cheap pass that lists who is in the filter now: the stable id (and `uid` for memberUid). */
export function idAttributes(type: DirectoryType, mapping: AttributeMapping): string[] {
  return type === 'active-directory' ? [mapping.externalId] : [...new Set([mapping.externalId, 'uid'])];
}

/** objectGUID as AD writes it in text: the first three groups little-endian ([MS-DTYP] 2.3.4.2). */
export function guidText(bytes: Buffer): string {
  const hex = (b: Buffer) => b.toString('hex');
  const le = (start: number, end: number) => hex(Buffer.from(bytes.subarray(start, end)).reverse());
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${hex(bytes.subarray(8, 10))}-${hex(bytes.subarray(10, 16))}`;
}

/** An attribute's first value as text, or null. */
export function firstValue(entry: Entry, attribute: string): string | null {
  const value = Object.entries(entry).find(([name]) => name.toLowerCase() === attribute.toLowerCase())?.[1];
  const one = Array.isArray(value) ? value[0] : value;
  if (one === undefined || one === null) return null;
  const text = Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
  return text === '' ? null : text;
}

/** The entry's stable id as text (lower case), or '' when it has none. */
export function externalIdOf(mapping: Pick<AttributeMapping, 'externalId'>, entry: Entry): string {
  const rawId = Object.entries(entry).find(([name]) => name.toLowerCase() === mapping.externalId.toLowerCase())?.[1];
  const idValue = Array.isArray(rawId) ? rawId[0] : rawId;
  const text = Buffer.isBuffer(idValue) ? (idValue.length === 16 ? guidText(idValue) : idValue.toString('hex')) : idValue ? String(idValue) : '';
  return text.toLowerCase();
}

/** The person an entry is, or a reason it cannot be one. */
export function personOf(type: DirectoryType, mapping: AttributeMapping, entry: Entry): DirectoryPerson | { dn: string; problem: string } {
  const externalId = externalIdOf(mapping, entry);
  const userName = firstValue(entry, mapping.userName);
  if (!externalId) return { dn: entry.dn, problem: `the entry has no ${mapping.externalId}` };
  if (!userName) return { dn: entry.dn, problem: `the entry has no ${mapping.userName}` };
  const givenName = firstValue(entry, mapping.givenName) ?? '';
  const familyName = firstValue(entry, mapping.familyName) ?? '';
  const disabled =
    type === 'active-directory'
      ? (Number(firstValue(entry, 'userAccountControl') ?? 0) & ACCOUNTDISABLE) !== 0
      : firstValue(entry, 'pwdAccountLockedTime') !== null;
  return {
    dn: entry.dn,
    externalId,
    userName,
    email: firstValue(entry, mapping.email),
    givenName,
    familyName,
    displayName: firstValue(entry, mapping.displayName) ?? (`${givenName} ${familyName}`.trim() || userName),
    phone: firstValue(entry, mapping.phone),
    disabled,
  };
}

/** Pages through the directory's users (RFC 2696), a page at a time: all of them, or those of `filter`. */
export async function* userPages(
  client: Client,
  type: DirectoryType,
  settings: DirectorySettings,
  { filter = settings.userFilter, attributes = userAttributes(type, settings.attributes) }: { filter?: string; attributes?: string[] } = {},
): AsyncGenerator<Entry[]> {
  const binary = type === 'active-directory' ? [settings.attributes.externalId] : [];
  for await (const page of client.searchPaginated(settings.usersDn, {
    scope: 'sub',
    filter,
    attributes,
    explicitBufferAttributes: binary,
    paged: { pageSize: PAGE_SIZE },
  })) {
    yield page.searchEntries;
  }
}
