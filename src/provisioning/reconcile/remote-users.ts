import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { answerOf, noAnswer } from '../pusher/scim-answer.js';
import type { Answer } from '../pusher/scim-answer.js';
import { authorizationFor, ScimAuthError, scimRequest } from '../scim-client.js';
import type { Fetch, ScimEndpoint } from '../scim-client.js';

/** One page of a target's Users (RFC 7644 §3.4.2.4 asks for `count`; a target may answer fewer). */
const PAGE_SIZE = 100;
/**
 * The most users a reconcile reads from a target (and from the organization): it runs in the request, one page
 * at a time, each request under the target's request timeout (scim-client.ts), so at most 50 requests (docs/provisioning.md).
 */
export const RECONCILE_LIMIT = 5000;
/** However the target answers, the request that reads it ends within this (docs/provisioning.md, "Reconcile"). */
const READ_BUDGET_MS = 60_000;

/** What a reconcile needs of a user at the target. */
export interface RemoteUser {
  id: string;
  externalId: string | undefined;
  userName: string | undefined;
  /** The rest as the target shows it, to compare with what would be pushed. */
  resource: Record<string, unknown>;
}

/**
 * Every user at the target, paged with `startIndex` and `count` (RFC 7644 §3.4.2.4). A target that cannot be read
 * (refused, unreachable, an answer that is not a list) or that holds more than RECONCILE_LIMIT users is a 400
 * naming why: nothing is planned from half a picture.
 */
export async function readRemoteUsers(endpoint: ScimEndpoint, fetch: Fetch): Promise<RemoteUser[]> {
  let authorization: string;
  try {
    authorization = (await authorizationFor(endpoint, fetch)).header;
  } catch (error) {
    throw unreadable(error instanceof ScimAuthError ? error.message : noAnswer(error).error);
  }
  const users: RemoteUser[] = [];
  const deadline = Date.now() + READ_BUDGET_MS;
  for (let startIndex = 1; ; ) {
    if (Date.now() > deadline) throw unreadable(`reading took more than ${READ_BUDGET_MS / 1000} s`);
    const path = `/Users?startIndex=${startIndex}&count=${PAGE_SIZE}`;
    let answer: Answer;
    try {
      answer = await answerOf(await scimRequest(endpoint, fetch, authorization, 'GET', path), true);
    } catch (error) {
      answer = noAnswer(error);
    }
    if (answer.kind !== 'ok') throw unreadable(`GET ${path} ${'error' in answer ? answer.error : `answered ${answer.status}`}`);
    const resources = answer.body?.Resources ?? [];
    const total = Number(answer.body?.totalResults);
    if (!Array.isArray(resources) || !Number.isInteger(total)) throw unreadable(`GET ${path} answered no SCIM list (RFC 7644 §3.4.2)`);
    if (total > RECONCILE_LIMIT) throw unreadable(`the target has ${total} users; a reconcile reads at most ${RECONCILE_LIMIT}`);
    for (const resource of resources as Record<string, unknown>[]) {
      if (typeof resource?.id !== 'string') continue;
      users.push({
        id: resource.id,
        externalId: typeof resource.externalId === 'string' && resource.externalId !== '' ? resource.externalId : undefined,
        userName: typeof resource.userName === 'string' ? resource.userName : undefined,
        resource,
      });
    }
    startIndex += resources.length;
    if (resources.length === 0 || startIndex > total) return users;
    if (users.length > RECONCILE_LIMIT) throw unreadable(`the target listed more than ${RECONCILE_LIMIT} users`);
  }
}

function unreadable(why: string): DomainError {
  return new DomainError(ErrorCode.FailedPrecondition, `the target's users could not be read: ${why}`);
}
