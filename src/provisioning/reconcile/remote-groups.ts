import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { quoted, WITHOUT_MEMBERS } from '../pusher/group-push.js';
import { answerOf, noAnswer } from '../pusher/scim-answer.js';
import type { Answer } from '../pusher/scim-answer.js';
import { authorizationFor, featuresOf, ScimAuthError, scimRequest } from '../scim-client.js';
import type { Fetch, ScimEndpoint } from '../scim-client.js';
import { RECONCILE_LIMIT } from './remote-users.js';

const PAGE_SIZE = 100;
/** However the target answers, the group reads of one reconcile end within this (docs/provisioning.md, "Reconcile"). */
const READ_BUDGET_MS = 60_000;

/** What a reconcile needs of a group at the target (never its members: see group-push.ts, WITHOUT_MEMBERS). */
export interface RemoteGroup {
  id: string;
  externalId: string | undefined;
  displayName: string | undefined;
}

/**
 * Reads a target's groups for a reconcile: page by page without their members, and membership one member at a time
 * with a filtered read (`id eq "…" and members[value eq "…"]`, RFC 7644 §3.4.2.2) where the target filters. A
 * target that cannot be read is a 400 naming why, as for its users (remote-users.ts).
 */
export class RemoteGroupReader {
  private readonly deadline = Date.now() + READ_BUDGET_MS;
  private filters: boolean;

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
      const filter = `id eq "${quoted(groupId)}" and members[value eq "${quoted(memberId)}"]`;
      const body = await this.read(`/Groups?filter=${encodeURIComponent(filter)}&attributes=id`, true);
      if (body === undefined) {
        this.filters = false;
        return undefined;
      }
      if (Number(body.totalResults) > 0 || (Array.isArray(body.Resources) && body.Resources.length > 0)) present.add(memberId);
    }
    return present;
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

function unreadable(why: string): DomainError {
  return new DomainError(ErrorCode.FailedPrecondition, `the target's groups could not be read: ${why}`);
}
