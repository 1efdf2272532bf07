import type { Request, Response } from 'express';

/** The browser's login session as the protocol keeps it (oidc-provider's Session). */
export interface StoredSession {
  accountId?: string;
  uid: string;
  jti: string;
  loginTs?: number;
  acr?: string;
}

/**
 * What the account page needs of the protocol whose login session it lives in; src/oidc provides it. The account
 * page sits below the protocols (docs/architecture.md, "The parts") and reaches them only through this.
 */
export interface AccountProtocol {
  /** The browser's session (read from its signed cookie; the protocol alone writes sessions). */
  session(req: Request, res: Response): Promise<StoredSession>;
  /**
   * Where the account page's own sign-in starts; `again` asks for the login even within a session; `upstream` sends it
   * to an identity provider (`idp_hint`) with a `state` the signed-in page reads back (an IdP-initiated sign-in);
   * `state` alone is read back the same way (the page the sign-in started from).
   */
  signInUrl(again: boolean, locale: string, upstream?: { idpHint: string; state: string }, state?: string): string;
  /** Where "sign out" goes. */
  signOutUrl(): string;
  /** The name a session's application shows under; undefined for the account page's own client. */
  applicationName(clientId: string): Promise<string | undefined>;
  /** The person's connected apps and agents (docs/agents.md, "Consent and connected agents"). */
  connectedAgents(userId: string): Promise<ConnectedAgent[]>;
  /** Ends the person's consent to that client and every token of it at once; false when there was none. */
  revokeAgent(user: { id: string; orgId: string }, clientId: string): Promise<boolean>;
}

/** An agent client the person allowed to act for them, with what it may do at each resource. */
export interface ConnectedAgent {
  clientId: string;
  clientName: string;
  grants: { resource: string; scopes: string[] }[];
}

export const ACCOUNT_PROTOCOL = Symbol('ACCOUNT_PROTOCOL');
