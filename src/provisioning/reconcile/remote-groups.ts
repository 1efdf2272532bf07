import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { quoted, WITHOUT_MEMBERS } from '../pusher/group-push.js';
import { answerOf, noAnswer } from '../pusher/scim-answer.js';
import type { Answer } from '../pusher/scim-answer.js';
import { authorizationFor, featuresOf, ScimAuthError, scimRequest } from '../scim-client.js';
import type { Fetch, ScimEndpoint } from '../scim-client.js';
import { RECONCILE_LIMIT } from './remote-users.js';

const PAGE_SIZE = 100;
/** The longest filter one read joins members into (encoded), well under the 8,000 octets HTTP asks servers to take (RFC 9110 §4.1). */
const MAX_FILTER_CHARS = 3000;
/** However the target answers, the group reads of one reconcile end within this (docs/provisioning.md, "Reconcile"). */
const READ_BUDGET_MS = 60_000;

/** What a reconcile needs of a group at the target (never its members: see group-push.ts, WITHOUT_MEMBERS). */
export interface RemoteGroup {
  id: string;
  externalId: string | undefined;
  displayName: string | undefined;
}

/**
 * Reads a target's groups for a reconcile: page by page without their members, and membership by filtered reads
 * (`id eq "…" and members[value eq "…"]`, RFC 7644 §3.4.2.2) where the target filters. A
 * target that cannot be read is a 400 naming why, as for its users (remote-users.ts).
 */
export class RemoteGroupReader {
  private readonly deadline = Date.now() + READ_BUDGET_MS;
  private filters: boolean;
  /** Whether the target takes a member filter joined with `or` (until it refuses one). */
  private joinedFilters = true;

  private constructor(
    private readonly endpoint: ScimEndpoint,
    private readonly fetch: Fetch,
    private readonly authorization: string,
    filter: boolean,
  ) {
    this.filters = filter;
  }

  /** Authenticates, and reads the target's ServiceProviderConfig: a target that does not filter is not asked to. */
  static async open(endpoint: ScimEndpoint, fetch: Fetch): Promise<RemoteGroupReader> {
    let authorization: string;
    try {
      authorization = (await authorizationFor(endpoint, fetch)).header;
    } catch (error) {
      throw unreadable(error instanceof ScimAuthError ? error.message : noAnswer(error).error);
    }
    const reader = new RemoteGroupReader(endpoint, fetch, authorization, false);
    reader.filters = featuresOf(await reader.read('/ServiceProviderConfig')).filter;
    return reader;
  }

  /** Every group at the target, paged with `startIndex` and `count` (RFC 7644 §3.4.2.4), members left out. */
  async groups(): Promise<RemoteGroup[]> {
    const groups: RemoteGroup[] = [];
    for (let startIndex = 1; ; ) {
      const path = `/Groups?startIndex=${startIndex}&count=${PAGE_SIZE}&${WITHOUT_MEMBERS}`;
      const body = await this.read(path);
      const resources = body.Resources ?? [];
      const total = Number(body.totalResults);
      if (!Array.isArray(resources) || !Number.isInteger(total)) throw unreadable(`GET ${path} answered no SCIM list (RFC 7644 §3.4.2)`);
      if (total > RECONCILE_LIMIT) throw unreadable(`the target has ${total} groups; a reconcile reads at most ${RECONCILE_LIMIT}`);
      for (const r of resources as Record<string, unknown>[]) {
        if (typeof r?.id !== 'string') continue;
        groups.push({
          id: r.id,
          externalId: typeof r.externalId === 'string' && r.externalId !== '' ? r.externalId : undefined,
          displayName: typeof r.displayName === 'string' ? r.displayName : undefined,
        });
      }
      startIndex += resources.length;
      if (resources.length === 0 || startIndex > total) return groups;
    }
  }

  /**
   * Which of `candidates` (remote user ids) the group lists, one filtered read each; undefined when the target does
   * not filter (its ServiceProviderConfig says so, or it refuses the filter with a 400): the record then stays as it is.
   */
  async membersAmong(groupId: string, candidates: Iterable<string>): Promise<Set<string> | undefined> {
    if (!this.filters) return undefined;
    const present = new Set<string>();
    for (const memberId of candidates) {
      const listed = await this.listsAny(groupId, [memberId]);
      if (listed === undefined) return this.cannotFilter();
      if (listed) present.add(memberId);
    }
    return present;
  }

  /**
   * Which of `others` (the target's users the group should not list, and was never told to) it lists anyway: members
   * someone else added there. Asked many at a time, `members[value eq "a" or value eq "b" …]` (RFC 7644 §3.4.2.2: a
   * value filter joins expressions with `or`), and a set the group lists is halved until each such member is named
   * alone — one read per few dozen users where nobody was added. A target that refuses the joined filter (400) is
   * asked one member at a time. Undefined when the target does not filter, as for membersAmong.
   */
  async othersAmong(groupId: string, others: readonly string[]): Promise<Set<string> | undefined> {
    if (!this.filters) return undefined;
    const found = new Set<string>();
    for (const batch of filterBatches(others)) if (!(await this.search(groupId, batch, found))) return this.cannotFilter();
    return found;
  }

  /** Adds to `found` the members of `ids` the group lists; false when the target refused even a one-member filter. */
  private async search(groupId: string, ids: readonly string[], found: Set<string>): Promise<boolean> {
    if (ids.length > 1 && !this.joinedFilters) {
      for (const id of ids) if (!(await this.search(groupId, [id], found))) return false;
      return true;
    }
    const listed = await this.listsAny(groupId, ids);
    if (listed === undefined) {
      if (ids.length === 1) return false;
      this.joinedFilters = false;
      return this.search(groupId, ids, found);
    }
    if (!listed) return true;
    if (ids.length === 1) {
      found.add(ids[0]);
      return true;
    }
    const half = Math.ceil(ids.length / 2);
    return (await this.search(groupId, ids.slice(0, half), found)) && this.search(groupId, ids.slice(half), found);
  }

  /** Whether the group lists any of `ids` (one filtered read, RFC 7644 §3.4.2.2); undefined when the target refuses the filter. */
  private async listsAny(groupId: string, ids: readonly string[]): Promise<boolean | undefined> {
    const body = await this.read(`/Groups?filter=${encodeURIComponent(memberFilter(groupId, ids))}&attributes=id`, true);
    if (body === undefined) return undefined;
    return Number(body.totalResults) > 0 || (Array.isArray(body.Resources) && body.Resources.length > 0);
  }

  private cannotFilter(): undefined {
    this.filters = false;
    return undefined;
  }

  private async read(path: string): Promise<Record<string, unknown>>;
  private async read(path: string, refusable: true): Promise<Record<string, unknown> | undefined>;
  private async read(path: string, refusable = false): Promise<Record<string, unknown> | undefined> {
    if (Date.now() > this.deadline) throw unreadable(`reading took more than ${READ_BUDGET_MS / 1000} s`);
    let answer: Answer;
    try {
      answer = await answerOf(await scimRequest(this.endpoint, this.fetch, this.authorization, 'GET', path), true);
    } catch (error) {
      answer = noAnswer(error);
    }
    if (refusable && answer.kind === 'invalid') return undefined;
    if (answer.kind !== 'ok') throw unreadable(`GET ${path} ${'error' in answer ? answer.error : `answered ${answer.status}`}`);
    return answer.body ?? {};
  }
}

function memberFilter(groupId: string, ids: readonly string[]): string {
  return `id eq "${quoted(groupId)}" and members[${ids.map((id) => `value eq "${quoted(id)}"`).join(' or ')}]`;
}

/** `ids` in runs whose joined filter stays within MAX_FILTER_CHARS once encoded (at least one id a run). */
function filterBatches(ids: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const id of ids) {
    const size = encodeURIComponent(` or value eq "${quoted(id)}"`).length;
    if (batch.length > 0 && chars + size > MAX_FILTER_CHARS) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(id);
    chars += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function unreadable(why: string): DomainError {
  return new DomainError(ErrorCode.FailedPrecondition, `the target's groups could not be read: ${why}`);
}
