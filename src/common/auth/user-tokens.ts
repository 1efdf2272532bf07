import type { EntityManager } from 'typeorm';
import type { Page, Paged } from '../database/page.js';

/**
 * Revokes everything a user was issued by the OIDC layer: sessions, grants, codes, access and refresh
 * tokens; lists and ends its sessions. `common` declares it and the OIDC layer provides it, so the users domain can revoke a user's
 * access in the transaction of the change that ends it without importing a surface.
 */
export interface UserTokens {
  /** Everything of the user; `keepSession` (a session's public uid) stays signed in: the account page's own password change (docs/account.md). */
  revokeAll(manager: EntityManager, userId: string, options?: { keepSession?: string }): Promise<void>;
  /** `revokeAll`, and the user's consents to agent clients go too: the user is being removed. */
  forgetUser(manager: EntityManager, userId: string): Promise<void>;
  /** The user's live browser sessions of the login UI, newest sign-in first. */
  sessions(userId: string): Promise<UserSession[]>;
  /** Ends one (as a sign-out would: its access tokens go, an offline refresh token stays); false if the user has no such session. */
  endSession(manager: EntityManager, userId: string, sessionId: string): Promise<boolean>;
  /** The user's consents to agent clients, newest change first (docs/agents.md, "Consent and connected agents"). */
  agentConsents(userId: string): Promise<AgentConsent[]>;
  /** The consents of the organization's people, a page of them with the total; `query` as the list's `?query=`. */
  orgAgentConsents(orgId: string, page: Page, query?: string): Promise<Paged<AgentConsent>>;
  /**
   * Ends the user's consent to that client and every grant, code and token of it, with its event `user.agent.revoked`,
   * in the caller's transaction; false when there was none.
   */
  endAgentConsent(manager: EntityManager, target: { orgId: string; userId: string; clientId: string }, editorUserId: string | null): Promise<boolean>;
  /**
   * After the people lost a grant (removed, a role taken out of it, or a group membership that carried it), ends in the
   * caller's transaction their consents to agent clients for resources they no longer enter, with every grant, code
   * and token of those clients (docs/agents.md, "Consent and connected agents").
   */
  endAgentsNoLongerAdmitted(manager: EntityManager, userIds: readonly string[], editorUserId: string | null): Promise<void>;
}

/** One consent of a person to an agent client at one resource ('' for none). */
export interface AgentConsent {
  clientId: string;
  clientName: string;
  userId: string;
  resource: string;
  scopes: string[];
  connectedAt: Date;
  /** When the person last allowed more scopes (the connection itself when never). */
  changedAt: Date;
}

/** A browser session, named by its public `uid` (never the cookie's value, which would let a reader take it over). */
export interface UserSession {
  sessionId: string;
  signedInAt: Date;
  /** When the session last served a request (its sliding expiry, less the session lifetime). */
  lastUsedAt: Date;
  expiresAt: Date | null;
  /** The client ids the session signed in to. */
  clientIds: string[];
  /** RFC 8176 methods of its sign-in. */
  amr: string[];
}

export const USER_TOKENS = Symbol('USER_TOKENS');
