import { AndFilter, ExtensibleFilter, FilterParser } from 'ldapts';
import type { Client, Entry } from 'ldapts';
import { externalIdOf, firstValue, PAGE_SIZE } from './directory-entries.js';
import type { DirectorySettings, DirectoryType } from './directory-settings.js';

/** A directory group as the sync reads it (docs/directories.md, "Groups"). */
export interface DirectoryGroup {
  dn: string;
  externalId: string;
  name: string;
  /** The DNs of its direct members (`member`, `uniqueMember`): people and groups alike. */
  memberDns: string[];
  /** posixGroup's `memberUid`: people by their `uid`. */
  memberUids: string[];
}

/**
 * Who is in the user filter now, by stable id: the entry's DN (as `dnKey` compares it) and `uid`, by which groups
 * name their members, as one string (`presence`): held for every person of a sync, where an object of two strings
 * took twice the memory (20 against 11 MB for 100,000 people).
 */
export type Present = Map<string, string>;

/** A person's DN and uid as one `Present` value: the uid's length, a colon, the uid, then the DN's key. */
export function presence(dn: string, uid: string | null): string {
  return `${uid?.length ?? ''}:${uid ?? ''}${dnKey(dn)}`;
}

function presenceParts(value: string): { dnKey: string; uid: string | null } {
  const colon = value.indexOf(':');
  if (colon === 0) return { dnKey: value.slice(1), uid: null };
  const end = colon + 1 + Number(value.slice(0, colon));
  return { uid: value.slice(colon + 1, end), dnKey: value.slice(end) };
}

/** AD's LDAP_MATCHING_RULE_IN_CHAIN ([MS-ADTS] 3.1.1.3.4.4.3): membership through any depth of nesting. */
export const IN_CHAIN = '1.2.840.113556.1.4.1941';

/** Reads every group of the group filter under `groupsDn` (RFC 2696 pages); none when no groupsDn is set. */
export async function readGroups(
  client: Client,
  type: DirectoryType,
  settings: DirectorySettings,
): Promise<(DirectoryGroup | { dn: string; problem: string })[]> {
  if (!settings.groupsDn) return [];
  const idAttribute = settings.attributes.externalId;
  const groups: (DirectoryGroup | { dn: string; problem: string })[] = [];
  for await (const page of client.searchPaginated(settings.groupsDn, {
    scope: 'sub',
    filter: settings.groupFilter,
    // AD's members are found by the in-chain rule, per group: its own `member` lists are not read.
    attributes: type === 'active-directory' ? [idAttribute, 'cn'] : [idAttribute, 'cn', 'member', 'uniqueMember', 'memberUid'],
    explicitBufferAttributes: type === 'active-directory' ? [idAttribute] : [],
    paged: { pageSize: PAGE_SIZE },
  })) {
    for (const entry of page.searchEntries) {
      const externalId = externalIdOf(settings.attributes, entry);
      const name = firstValue(entry, 'cn');
      if (!externalId) groups.push({ dn: entry.dn, problem: `the group has no ${idAttribute}` });
      else if (!name) groups.push({ dn: entry.dn, problem: 'the group has no cn' });
      else
        groups.push({
          dn: entry.dn,
          externalId,
          name,
          memberDns: [...values(entry, 'member'), ...values(entry, 'uniqueMember').map(withoutUid)],
          memberUids: values(entry, 'memberUid'),
        });
    }
  }
  return groups;
}

/**
 * The people in each group, directly or through nested groups, by their stable ids (only people in the user filter
 * count). OpenLDAP has no in-chain rule: the groups' own member lists are followed, each group once, so a cycle ends.
 * Active Directory answers it itself, one query per group (`memberOf` in chain), which also sees nesting through
 * groups outside the group filter.
 */
export async function membersOfGroups(
  client: Client,
  type: DirectoryType,
  settings: DirectorySettings,
  groups: DirectoryGroup[],
  present: Present,
): Promise<Map<string, Set<string>>> {
  return type === 'active-directory' ? inChainMembers(client, settings, groups) : followedMembers(groups, present);
}

function followedMembers(groups: DirectoryGroup[], present: Present): Map<string, Set<string>> {
  // Only the people some group names are looked up by DN or uid: a large directory's people are not indexed twice more.
  const namedDns = new Set(groups.flatMap((group) => group.memberDns.map(dnKey)));
  const namedUids = new Set(groups.flatMap((group) => group.memberUids));
  const peopleByDn = new Map<string, string>();
  const peopleByUid = new Map<string, string>();
  for (const [id, value] of present) {
    const person = presenceParts(value);
    if (namedDns.has(person.dnKey)) peopleByDn.set(person.dnKey, id);
    if (person.uid && namedUids.has(person.uid)) peopleByUid.set(person.uid, id);
  }
  const groupsByDn = new Map(groups.map((group) => [dnKey(group.dn), group]));
  const result = new Map<string, Set<string>>();
  for (const group of groups) {
    const members = new Set<string>();
    const seen = new Set<string>([dnKey(group.dn)]);
    const queue = [group];
    while (queue.length > 0) {
      const current = queue.pop()!;
      for (const uid of current.memberUids) {
        const id = peopleByUid.get(uid);
        if (id) members.add(id);
      }
      for (const dn of current.memberDns) {
        const key = dnKey(dn);
        const person = peopleByDn.get(key);
        if (person) members.add(person);
        const nested = groupsByDn.get(key);
        if (nested && !seen.has(key)) {
          seen.add(key);
          queue.push(nested);
        }
      }
    }
    result.set(group.externalId, members);
  }
  return result;
}

async function inChainMembers(client: Client, settings: DirectorySettings, groups: DirectoryGroup[]): Promise<Map<string, Set<string>>> {
  const idAttribute = settings.attributes.externalId;
  const result = new Map<string, Set<string>>();
  const userFilter = FilterParser.parseString(settings.userFilter);
  for (const group of groups) {
    const members = new Set<string>();
    // Built by the library, so the group's DN is escaped as a filter value (RFC 4515).
    const filter = new AndFilter({ filters: [userFilter, new ExtensibleFilter({ matchType: 'memberOf', rule: IN_CHAIN, value: group.dn })] });
    for await (const page of client.searchPaginated(settings.usersDn, {
      scope: 'sub',
      filter,
      attributes: [idAttribute],
      explicitBufferAttributes: [idAttribute],
      paged: { pageSize: PAGE_SIZE },
    })) {
      for (const entry of page.searchEntries) {
        const id = externalIdOf(settings.attributes, entry);
        if (id) members.add(id);
      }
    }
    result.set(group.externalId, members);
  }
  return result;
}

function values(entry: Entry, attribute: string): string[] {
  const value = Object.entries(entry).find(([name]) => name.toLowerCase() === attribute.toLowerCase())?.[1];
  return [value ?? []].flat().map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

/** uniqueMember may end in `#'…'B`, a unique identifier that is not part of the DN (RFC 4517 §3.3.21). */
function withoutUid(value: string): string {
  return value.replace(/#'[01]*'B$/, '');
}

/**
 * A DN compared as the directory compares it for these purposes: attribute names and values case-insensitively, the
 * spaces around separators ignored (RFC 4514 §2 allows them when reading). Escapes are kept as they are on both sides.
 */
export function dnKey(dn: string): string {
  return dn
    .trim()
    .toLowerCase()
    .replace(/\s*([,=+])\s*/g, '$1');
}
