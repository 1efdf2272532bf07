import { createHash } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { PrivateJwk } from '../../oidc/keys/key-pair.js';
import { SET_TYP } from '../event-uris.js';

export interface SetFacts {
  issuer: string;
  /** The receiver's client id (SSF 1.0 §4.1: `aud`). */
  audience: string;
  jti: string;
  /** SSF 1.0 §3 subject identifier; `iss_sub` names the user as the receiver's ID tokens do. */
  subject: Record<string, unknown>;
  events: Record<string, Record<string, unknown>>;
  /** SSF 1.0 §4.1.6: the transaction the SET came out of (the Portcullis event's id), so related SETs are recognised. */
  txn?: string;
}

/**
 * A Security Event Token (RFC 8417) as SSF 1.0 §4 profiles it: typed `secevent+jwt` (RFC 8417 §2.3), `iss`, `aud`,
 * `iat`, `jti`, `sub_id` and exactly one event in `events` (§4.1.4), signed with the instance's current signing key,
 * whose `kid` the receiver finds at the `jwks_uri` of the transmitter's configuration. No `exp` (RFC 8417 §2.2: a SET
 * is a statement of fact, not a credential).
 */
export async function signSet(signer: PrivateJwk, facts: SetFacts, now = Date.now()): Promise<string> {
  return new SignJWT({ sub_id: facts.subject, events: facts.events, ...(facts.txn ? { txn: facts.txn } : {}) })
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: SET_TYP })
    .setIssuer(facts.issuer)
    .setAudience(facts.audience)
    .setIssuedAt(Math.floor(now / 1000))
    .setJti(facts.jti)
    .sign(await importJWK(signer, signer.alg));
}

/** The same `jti` for the same event of the same stream on every process and retry, so a receiver drops repeats. */
export function setJti(streamId: string, source: string, key: string): string {
  return createHash('sha256').update(`${streamId}\0${source}\0${key}`, 'utf8').digest('base64url');
}
