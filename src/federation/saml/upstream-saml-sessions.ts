import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { newId } from '../../common/ids.js';
import { ROUND_TRIP_MS } from '../round-trips.js';
import type { UpstreamSamlName } from '../upstream-oidc.js';

/** An interaction's row waits this long for its session (oidc-provider's Interaction lifetime in provider-configuration.ts). */
const INTERACTION_MS = 60 * 60 * 1000;
/** A session's row is kept at most this long: a login session never outlives it (the longest refresh token lifetime). */
const SESSION_MS = 400 * 24 * 60 * 60 * 1000;

/** A sign-in through an upstream SAML IdP, as single logout names it (upstream-saml-session.entity.ts). */
export interface UpstreamSamlSession extends UpstreamSamlName {
  id: string;
  idpId: string;
  userId: string;
  sessionUid: string | null;
  logoutRequestId: string | null;
  afterLogout: string | null;
}

interface Row {
  id: string;
  idp_id: string;
  user_id: string;
  session_uid: string | null;
  name_id: string;
  name_id_format: string;
  name_qualifier: string | null;
  sp_name_qualifier: string | null;
  session_index: string | null;
  logout_request_id: string | null;
  after_logout: string | null;
}

const COLUMNS = 'id, idp_id, user_id, session_uid, name_id, name_id_format, name_qualifier, sp_name_qualifier, session_index, logout_request_id, after_logout';

/**
 * `upstream_saml_sessions` (docs/federation.md, "Single logout"): the NameID and SessionIndex of an upstream SAML
 * sign-in, remembered for the interaction that signed in, then for the login session it made; while a sign-out
 * waits for the IdP's LogoutResponse, the LogoutRequest's ID and RelayState (its keyed hash) and where the browser
 * goes next.
 */
@Injectable()
export class UpstreamSamlSessions {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly hasher: SecretHasher,
  ) {}

  async remember(idpId: string, userId: string, interactionUid: string, name: UpstreamSamlName, now = Date.now()): Promise<void> {
    await this.uow.write('DELETE FROM upstream_saml_sessions WHERE expires_at <= ?', [now]);
    await this.uow.write(
      `INSERT INTO upstream_saml_sessions (id, idp_id, user_id, interaction_uid, session_uid, name_id, name_id_format, name_qualifier,
        sp_name_qualifier, session_index, logout_state_hash, logout_request_id, after_logout, expires_at)
       VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)`,
      [
        newId(),
        idpId,
        userId,
        interactionUid,
        name.nameId,
        name.format,
        name.nameQualifier ?? null,
        name.spNameQualifier ?? null,
        name.sessionIndex ?? null,
        now + INTERACTION_MS,
      ],
    );
  }

  /** The interaction's sign-in made (or renewed) this login session. */
  async bind(interactionUid: string, userId: string, sessionUid: string, now = Date.now()): Promise<void> {
    await this.uow.write(
      'UPDATE upstream_saml_sessions SET session_uid = ?, interaction_uid = NULL, expires_at = ? WHERE interaction_uid = ? AND user_id = ? AND expires_at > ?',
      [sessionUid, now + SESSION_MS, interactionUid, userId, now],
    );
  }

  /** The upstream sign-ins of a login session. */
  async ofSession(sessionUid: string, now = Date.now()): Promise<UpstreamSamlSession[]> {
    const rows: Row[] = await this.uow.manager.query(`SELECT ${COLUMNS} FROM upstream_saml_sessions WHERE session_uid = ? AND expires_at > ?`, [
      sessionUid,
      now,
    ]);
    return rows.map(sessionOf);
  }

  /** The live sessions an IdP's LogoutRequest names: its NameID, and its SessionIndex when it gives one (SAML Core §3.7.3.2). */
  async named(manager: EntityManager, idpId: string, nameId: string, sessionIndex: string | undefined, now = Date.now()): Promise<UpstreamSamlSession[]> {
    const rows: Row[] = await manager.query(
      `SELECT ${COLUMNS} FROM upstream_saml_sessions WHERE idp_id = ? AND name_id = ? AND session_uid IS NOT NULL AND expires_at > ?`,
      [idpId, nameId, now],
    );
    return rows.map(sessionOf).filter((s) => sessionIndex === undefined || s.sessionIndex === sessionIndex);
  }

  /** The session's sign-in is logged out upstream now: it waits for the answer to `requestId`, by its RelayState. */
  async awaitLogout(id: string, requestId: string, relayState: string, afterLogout: string, now = Date.now()): Promise<void> {
    await this.uow.write(
      'UPDATE upstream_saml_sessions SET session_uid = NULL, logout_request_id = ?, logout_state_hash = ?, after_logout = ?, expires_at = ? WHERE id = ?',
      [requestId, this.stateHash(relayState), afterLogout, now + ROUND_TRIP_MS, id],
    );
  }

  /** The sign-out awaiting the IdP's answer with this RelayState, taken once. */
  async takeAwaited(idpId: string, relayState: string, now = Date.now()): Promise<UpstreamSamlSession | undefined> {
    const stateHash = this.stateHash(relayState);
    const [row]: Row[] = await this.uow.manager.query(
      `SELECT ${COLUMNS} FROM upstream_saml_sessions WHERE logout_state_hash = ? AND idp_id = ? AND expires_at > ?`,
      [stateHash, idpId, now],
    );
    if (!row || (await this.uow.write('DELETE FROM upstream_saml_sessions WHERE id = ?', [row.id])) !== 1) return undefined;
    return sessionOf(row);
  }

  async remove(manager: EntityManager, ids: string[]): Promise<void> {
    for (const id of ids) await manager.query('DELETE FROM upstream_saml_sessions WHERE id = ?', [id]);
  }

  private stateHash(relayState: string): string {
    return this.hasher.hash(`saml-logout-state:${relayState}`);
  }
}

function sessionOf(row: Row): UpstreamSamlSession {
  return {
    id: row.id,
    idpId: row.idp_id,
    userId: row.user_id,
    sessionUid: row.session_uid,
    nameId: row.name_id,
    format: row.name_id_format,
    ...(row.name_qualifier ? { nameQualifier: row.name_qualifier } : {}),
    ...(row.sp_name_qualifier ? { spNameQualifier: row.sp_name_qualifier } : {}),
    ...(row.session_index ? { sessionIndex: row.session_index } : {}),
    logoutRequestId: row.logout_request_id,
    afterLogout: row.after_logout,
  };
}
