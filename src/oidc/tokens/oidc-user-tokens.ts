import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import type { AgentConsent, UserSession, UserTokens } from '../../common/auth/user-tokens.js';
import type { Page, Paged } from '../../common/database/page.js';
import { EventStore } from '../../common/events/event-store.js';
import type { AgentConsentEntity } from '../../agents/consent/agent-consent.entity.js';
import { consentsOf, consentsOfOrgPeople, endConsents, forgetConsentsOf } from '../../agents/consent/agent-consents.js';
import { deleteUserPayloads, endClientTokens } from '../adapter/user-payloads.js';
import { endAgentsNoLongerAdmitted } from '../../agents/consent/ended-admissions.js';
import { revokeAccessTokensOfEndedSession } from '../adapter/logout-revocation.js';
import type { SessionAuthorizations } from '../adapter/logout-revocation.js';
import { instanceSettings } from '../../users/queries/instance.js';
import { liveSignInsOf, signInsOf } from '../logout/ended-sign-ins.js';

const SESSIONS_SQL = `SELECT uid, payload, expires_at FROM oidc_payloads WHERE model = 'Session' AND account_id = ?`;

interface StoredSession extends SessionAuthorizations {
  loginTs?: number;
  amr?: string[];
}

/**
 * USER_TOKENS for the users domain: deletes every stored OIDC object of the user (sessions, grants,
 * codes, opaque and JWT access tokens, refresh tokens) in the caller's transaction. JWT access tokens
 * are stored too (jwt-access-tokens.ts), so they stop being honoured at once like opaque ones. Also the
 * user's sessions, for the management API and the console (docs/mail.md, "Sessions").
 */
@Injectable()
export class OidcUserTokens implements UserTokens {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sessionEnds: SessionEnds,
    private readonly events: EventStore,
  ) {}

  async agentConsents(userId: string): Promise<AgentConsent[]> {
    return (await consentsOf(this.dataSource.manager, userId)).map(agentConsent);
  }

  async orgAgentConsents(orgId: string, page: Page, query?: string): Promise<Paged<AgentConsent>> {
    const { items, total } = await consentsOfOrgPeople(this.dataSource.manager, orgId, page, query);
    return { items: items.map(agentConsent), total };
  }

  endAgentConsent(manager: EntityManager, target: { orgId: string; userId: string; clientId: string }, editorUserId: string | null): Promise<boolean> {
    return endConsents(manager, this.events, target, editorUserId, endClientTokens);
  }

  endAgentsNoLongerAdmitted(manager: EntityManager, userIds: readonly string[], editorUserId: string | null): Promise<void> {
    return endAgentsNoLongerAdmitted(manager, this.events, userIds, editorUserId, endClientTokens);
  }

  async revokeAll(manager: EntityManager, userId: string, options: { keepSession?: string } = {}): Promise<void> {
    const signIns = await liveSignInsOf(manager, userId, options.keepSession);
    await this.sessionEnds.ended(manager, { userId, keepSession: options.keepSession, signIns });
    // A token exchanged from this user's grants (an impersonation by this user) ends with them. The kept session's
    // grants go too: its next authorization grants anew (interaction.policy.ts asks no consent).
    await deleteUserPayloads(manager, userId, { keepSession: options.keepSession });
  }

  async forgetUser(manager: EntityManager, userId: string): Promise<void> {
    await this.revokeAll(manager, userId);
    await forgetConsentsOf(manager, userId);
  }

  async sessions(userId: string): Promise<UserSession[]> {
    const rows = (await this.dataSource.query(SESSIONS_SQL, [userId])) as { uid: string; payload: string; expires_at: unknown }[];
    // oidc-provider saves a session on every request that reads it, with a fresh expiry of this lifetime (provider-configuration.ts).
    const lifetimeMs = ((await instanceSettings(this.dataSource.manager))?.refreshTokenAbsoluteLifetime ?? 0) * 1000;
    const now = Date.now();
    return rows
      .map((row) => {
        const stored = JSON.parse(row.payload) as StoredSession;
        const expiresAt = row.expires_at == null ? null : new Date(Number(row.expires_at));
        const signedInAt = new Date((stored.loginTs ?? 0) * 1000);
        const lastUsedAt = new Date(Math.min(now, Math.max(signedInAt.getTime(), (expiresAt?.getTime() ?? 0) - lifetimeMs)));
        return { sessionId: row.uid, signedInAt, lastUsedAt, expiresAt, clientIds: Object.keys(stored.authorizations ?? {}), amr: stored.amr ?? [] };
      })
      .filter((s) => s.sessionId && (s.expiresAt === null || s.expiresAt.getTime() > now) && s.signedInAt.getTime() > 0)
      .sort((a, b) => b.signedInAt.getTime() - a.signedInAt.getTime());
  }

  async endSession(manager: EntityManager, userId: string, sessionId: string): Promise<boolean> {
    const [row] = (await manager.query(`${SESSIONS_SQL} AND uid = ?`, [userId, sessionId])) as { payload: string }[];
    if (!row) return false;
    await manager.query(`DELETE FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`, [userId, sessionId]);
    const stored = JSON.parse(row.payload) as StoredSession;
    await revokeAccessTokensOfEndedSession(manager, stored);
    await this.sessionEnds.ended(manager, { userId, sessionUid: sessionId, signIns: signInsOf({ ...stored, uid: sessionId }) });
    return true;
  }
}

function agentConsent(row: AgentConsentEntity): AgentConsent {
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    userId: row.userId,
    resource: row.resource,
    scopes: row.scopes,
    connectedAt: row.createdAt,
    changedAt: row.changedAt,
  };
}
