import { Injectable } from '@nestjs/common';
import { Encryptor } from '../common/crypto/encryptor.js';
import { generateSecret, SecretHasher } from '../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { newId } from '../common/ids.js';
import type { UpstreamIdentity } from './upstream-oidc.js';

/** A round trip lives this long (docs/federation.md, "The round trip"): enough to sign in upstream, too short to be worth stealing. */
export const ROUND_TRIP_MS = 10 * 60 * 1000;

const ACCOUNT_LINK = 'account-link:';

/** The owner of a round trip started on the account page to link an identity: that login session (by its public id). */
export function accountLinkTrip(sessionUid: string): string {
  return `${ACCOUNT_LINK}${sessionUid}`;
}

export function isAccountLinkTrip(owner: string): boolean {
  return owner.startsWith(ACCOUNT_LINK);
}

/**
 * The owner of a trip an IdP-initiated response began (docs/federation.md, "IdP-initiated sign-in"): no interaction
 * exists yet; the sign-in the ACS starts claims it (`claim`) in the browser that holds its handle.
 */
export const IDP_INITIATED = 'idp-initiated';

/** What only this instance knows of a round trip: OIDC's PKCE verifier (RFC 7636) and nonce; SAML's request ID. */
export interface RoundTripSecrets {
  verifier?: string;
  nonce?: string;
  requestId?: string;
}

/**
 * What the upstream sent back: OIDC's code (and RFC 9207 `iss`) or error at the callback; SAML's identity, read
 * from a response the ACS validated, or the reason it was refused.
 */
export interface UpstreamAnswer {
  code?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
  identity?: UpstreamIdentity;
}

export interface FinishedRoundTrip extends RoundTripSecrets {
  idpId: string;
  answer: UpstreamAnswer;
}

/**
 * The trips of browsers to upstream identity providers and back (docs/federation.md, "The round trip"). The
 * `state` sent upstream is a random handle stored only as its hash. A trip is answered once (the callback,
 * which sees no interaction cookie) and finished once (under the login UI's path, where the interaction
 * cookie must name the interaction that started it): a second callback, a stale one, one for another IdP
 * (mix-up) or one finished in another browser (login CSRF) finds nothing.
 */
@Injectable()
export class RoundTrips {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly hasher: SecretHasher,
    private readonly encryptor: Encryptor,
  ) {}

  async begin(idpId: string, interactionUid: string, secrets: RoundTripSecrets, now = Date.now()): Promise<string> {
    const state = generateSecret();
    await this.uow.write('DELETE FROM idp_round_trips WHERE expires_at <= ?', [now]);
    await this.uow.write('INSERT INTO idp_round_trips (id, state_hash, idp_id, interaction_uid, secrets, answer, expires_at) VALUES (?, ?, ?, ?, ?, NULL, ?)', [
      newId(),
      this.stateHash(state),
      idpId,
      interactionUid,
      this.encryptor.encrypt(JSON.stringify(secrets)),
      now + ROUND_TRIP_MS,
    ]);
    return state;
  }

  /** The unanswered, unexpired trip of this `state` and IdP, without answering it (SAML validates against its request). */
  async open(idpId: string, state: string, now = Date.now()): Promise<RoundTripSecrets | undefined> {
    const [row]: { secrets: string }[] = await this.uow.manager.query(
      'SELECT secrets FROM idp_round_trips WHERE state_hash = ? AND idp_id = ? AND answer IS NULL AND expires_at > ?',
      [this.stateHash(state), idpId, now],
    );
    return row ? (JSON.parse(this.encryptor.decrypt(row.secrets)) as RoundTripSecrets) : undefined;
  }

  /** Records the upstream's answer to the trip of this `state` and IdP; its id and interaction, or undefined. */
  async answer(idpId: string, state: string, answer: UpstreamAnswer, now = Date.now()): Promise<{ id: string; interactionUid: string } | undefined> {
    const stateHash = this.stateHash(state);
    const sealed = this.encryptor.encrypt(JSON.stringify(answer));
    const changed = await this.uow.write('UPDATE idp_round_trips SET answer = ? WHERE state_hash = ? AND idp_id = ? AND answer IS NULL AND expires_at > ?', [
      sealed,
      stateHash,
      idpId,
      now,
    ]);
    if (changed !== 1) return undefined;
    const [row]: { id: string; interaction_uid: string }[] = await this.uow.manager.query(
      'SELECT id, interaction_uid FROM idp_round_trips WHERE state_hash = ?',
      [stateHash],
    );
    return row ? { id: row.id, interactionUid: row.interaction_uid } : undefined;
  }

  /**
   * An IdP-initiated trip, already answered, handed to the interaction that now signs in with it (once): its id, or
   * undefined when the handle names no such trip of this IdP (any more).
   */
  async claim(idpId: string, state: string, interactionUid: string, now = Date.now()): Promise<string | undefined> {
    const stateHash = this.stateHash(state);
    const changed = await this.uow.write(
      'UPDATE idp_round_trips SET interaction_uid = ? WHERE state_hash = ? AND idp_id = ? AND interaction_uid = ? AND answer IS NOT NULL AND expires_at > ?',
      [interactionUid, stateHash, idpId, IDP_INITIATED, now],
    );
    if (changed !== 1) return undefined;
    const [row]: { id: string }[] = await this.uow.manager.query('SELECT id FROM idp_round_trips WHERE state_hash = ?', [stateHash]);
    return row?.id;
  }

  /** Takes the answered trip `id` of this interaction, once; undefined when there is none (any more). */
  async finish(id: string, interactionUid: string, now = Date.now()): Promise<FinishedRoundTrip | undefined> {
    const [row]: { idp_id: string; secrets: string; answer: string | null; expires_at: number | string }[] = await this.uow.manager.query(
      'SELECT idp_id, secrets, answer, expires_at FROM idp_round_trips WHERE id = ? AND interaction_uid = ?',
      [id, interactionUid],
    );
    if (!row || row.answer === null || Number(row.expires_at) <= now) return undefined;
    const taken = await this.uow.write('DELETE FROM idp_round_trips WHERE id = ? AND interaction_uid = ? AND answer IS NOT NULL', [id, interactionUid]);
    if (taken !== 1) return undefined;
    const secrets = JSON.parse(this.encryptor.decrypt(row.secrets)) as RoundTripSecrets;
    return { idpId: row.idp_id, ...secrets, answer: JSON.parse(this.encryptor.decrypt(row.answer)) as UpstreamAnswer };
  }

  private stateHash(state: string): string {
    return this.hasher.hash(`idp-state:${state}`);
  }
}
