import { IDP_INITIATED_STATE_PREFIX } from '../../login/application-entry.js';
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { changedRows } from '../../common/database/changed-rows.js';
import { flag } from '../../common/database/column-values.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { SamlNameIdFormat } from '../../users/entities/saml-application.entity.js';

/** An AuthnRequest (or an IdP-initiated sign-in) waits this long for its sign-in: the login UI's interaction time. */
export const PENDING_MS = 3600_000;

/** What is answered once the user has signed in (docs/saml.md, "Single sign-on"). */
export interface PendingRequest {
  appId: string;
  /** The SP's request ID (InResponseTo); null for an IdP-initiated sign-in. */
  requestId: string | null;
  acsUrl: string;
  relayState: string | null;
  forceAuthn: boolean;
  isPassive: boolean;
  requiresMfa: boolean;
  /** The NameID format its NameIDPolicy gets (name-id-policy.ts); null: the application's, as IdP-initiated sign-ins. */
  nameIdFormat: SamlNameIdFormat | null;
}

/** The request's ID was seen before for this SP (SAML Profiles §4.1.4.5 wants it once; here a database replay cache). */
export class ReplayedRequest extends Error {}

/**
 * Stores a request to answer and returns its handle, which the authorization round trip carries as `state`, and the
 * PKCE challenge its code must bear (RFC 7636 §4.2; only the challenge is kept, so the code is tied to this row and
 * nothing secret is stored). The SP's ID is unique per application while the row lives: a replay is refused.
 */
export async function storePendingRequest(manager: EntityManager, request: PendingRequest, now: Date): Promise<{ handle: string; codeChallenge: string }> {
  const handle = `${request.requestId === null ? IDP_INITIATED_STATE_PREFIX : ''}${randomBytes(24).toString('base64url')}`;
  const codeChallenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
  try {
    await manager.query(
      `INSERT INTO saml_requests (handle_hash, app_id, request_id, acs_url, relay_state, force_authn, is_passive, requires_mfa, name_id_format, code_challenge, answered, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        handleHash(handle),
        request.appId,
        request.requestId,
        request.acsUrl,
        request.relayState,
        request.forceAuthn,
        request.isPassive,
        request.requiresMfa,
        request.nameIdFormat,
        codeChallenge,
        false,
        now.getTime() + PENDING_MS,
      ],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new ReplayedRequest(`the request ID ${request.requestId} was already used`);
    throw error;
  }
  return { handle, codeChallenge };
}

/** The pending request of this handle, marked answered in the same statement: a second use finds nothing. */
export async function takePendingRequest(manager: EntityManager, handle: string, now: Date): Promise<(PendingRequest & { codeChallenge: string }) | undefined> {
  const hash = handleHash(handle);
  const rows = (await manager.query('SELECT * FROM saml_requests WHERE handle_hash = ? AND answered = ? AND expires_at >= ?', [
    hash,
    false,
    now.getTime(),
  ])) as Record<string, unknown>[];
  const row = rows[0];
  if (!row) return undefined;
  if ((await changedRows(manager, 'UPDATE saml_requests SET answered = ? WHERE handle_hash = ? AND answered = ?', [true, hash, false])) !== 1) return undefined;
  return {
    appId: String(row.app_id),
    requestId: row.request_id == null ? null : String(row.request_id),
    acsUrl: String(row.acs_url),
    relayState: row.relay_state == null ? null : String(row.relay_state),
    forceAuthn: flag(row.force_authn),
    isPassive: flag(row.is_passive),
    requiresMfa: flag(row.requires_mfa),
    nameIdFormat: row.name_id_format == null ? null : (String(row.name_id_format) as SamlNameIdFormat),
    codeChallenge: String(row.code_challenge),
  };
}

/**
 * Rows past their time, by the purge job, never on a request's path (the replay cache of a request lasts as long as its
 * row; an ID that old is refused anyway, its IssueInstant being stale). Answers how many went.
 */
export function removeExpiredRequests(uow: UnitOfWork, now: number): Promise<number> {
  return uow.write('DELETE FROM saml_requests WHERE expires_at < ?', [now]);
}

function handleHash(handle: string): string {
  return createHash('sha256').update(handle).digest('hex');
}
