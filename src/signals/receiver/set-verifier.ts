import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';
import type { SubscriptionRow } from './subscription.queries.js';

/** SSF 1.0 §11.1.2 / DESIGN of docs/signals.md: a SET older than this is refused (`iat`), as one dated ahead by more than the skew. */
export const SET_MAX_AGE_S = 300;
const CLOCK_SKEW_S = 60;

/** Why a SET was refused: RFC 8935 §2.3's `err` codes. */
export class RefusedSet extends Error {
  constructor(
    readonly err: 'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience' | 'authentication_failed' | 'access_denied',
    readonly reason: string,
    readonly jti?: string,
  ) {
    super(reason);
  }
}

/** A SET as verified: its one event and the subject it names. */
export interface VerifiedSet {
  jti: string;
  iat: number;
  eventUri: string;
  event: Record<string, unknown>;
  /** The `sub` of an `iss_sub` subject issued by the transmitter. */
  subject: string;
}

/**
 * RFC 8417 §3 and SSF 1.0 §11: the SET must be signed (never `alg: none`) by a key of the transmitter's key set, with
 * the transmitter's `iss`, this receiver's `aud`, an `iat` within SET_MAX_AGE_S, a `jti`, exactly one event, and a
 * subject the transmitter issued (`iss_sub`, or `sub_id` inside the event as CAEP's earlier drafts put it).
 */
export async function verifySet(token: string, subscription: SubscriptionRow, keys: JSONWebKeySet, now = Date.now()): Promise<VerifiedSet> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new RefusedSet('invalid_request', 'not a JWS');
  }
  if (!header.alg || header.alg === 'none') throw new RefusedSet('invalid_key', 'unsigned');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, createLocalJWKSet(keys), { algorithms: ['RS256', 'ES256', 'EdDSA', 'PS256', 'ES384', 'RS384', 'RS512'] }));
  } catch (error) {
    throw new RefusedSet('invalid_key', `signature not verified (${error instanceof Error ? error.message : 'unknown'})`);
  }
  const jti = typeof payload.jti === 'string' && payload.jti.length > 0 && payload.jti.length <= 255 ? payload.jti : undefined;
  if (!jti) throw new RefusedSet('invalid_request', 'no jti');
  if (payload.iss !== subscription.issuer) throw new RefusedSet('invalid_issuer', 'another issuer', jti);
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(subscription.audience)) throw new RefusedSet('invalid_audience', 'another audience', jti);
  const nowS = Math.floor(now / 1000);
  if (typeof payload.iat !== 'number' || payload.iat < nowS - SET_MAX_AGE_S || payload.iat > nowS + CLOCK_SKEW_S)
    throw new RefusedSet('invalid_request', 'iat too old or in the future', jti);
  const events = payload.events;
  if (!events || typeof events !== 'object' || Array.isArray(events) || Object.keys(events).length !== 1)
    throw new RefusedSet('invalid_request', 'not exactly one event', jti);
  const [eventUri, event] = Object.entries(events as Record<string, unknown>)[0];
  if (!event || typeof event !== 'object') throw new RefusedSet('invalid_request', 'event is not an object', jti);
  const subjectId = (payload.sub_id ?? (event as Record<string, unknown>).subject) as Record<string, unknown> | undefined;
  if (!subjectId || subjectId.format !== 'iss_sub' || subjectId.iss !== subscription.issuer || typeof subjectId.sub !== 'string')
    throw new RefusedSet('invalid_request', 'no iss_sub subject of the issuer', jti);
  return { jti, iat: payload.iat, eventUri, event: event as Record<string, unknown>, subject: subjectId.sub };
}
