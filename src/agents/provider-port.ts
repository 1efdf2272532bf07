import type { OidcContext } from 'oidc-provider';
import type { EntityManager } from 'typeorm';
import type { ClientJwk } from '../common/crypto/client-jwks.js';

/*
 * What the agents feature needs of the OAuth provider, declared here and provided by src/oidc (as src/login declares
 * SIGN_IN_PROTOCOL): src/agents imports nothing of the provider (docs/architecture.md, "The parts").
 */

/** Ends every grant, code and token one client holds for one person, in the caller's transaction. */
export type EndClientTokens = (manager: EntityManager, userId: string, clientId: string) => Promise<void>;

/** The keys at a client's `jwks_uri`, read under the rules every application's are (RFC 7591 §2). */
export interface ClientKeysAtUri {
  keysAt(uri: string): Promise<ClientJwk[]>;
}

/** A person as the provider finds them for a token: an active account of an organization, and its claims. */
export interface AgentAccount {
  accountId: string;
  orgId: string;
  claims(use: string, scope: string): unknown;
}

/** The requesting client of a token request, as the provider authenticated it. */
export type TokenClient = NonNullable<OidcContext['oidc']['client']>;

/**
 * What enterprise-managed authorization (docs/agents.md) needs of the provider on its token endpoint: the person's
 * account, the provider's refusal (invalid_grant naming the check, RFC 6749 §5.2), and on each side its own steps.
 */
export interface IdJagGrants {
  /** This authorization server's issuer identifier. */
  issuer: string;
  account(userId: string): Promise<AgentAccount | undefined>;
  invalidGrant(description: string): Error;
}

/** Issuing an ID-JAG: token exchange of an ID token this instance issued (RFC 8693 §2.1). */
export interface IdJagIssuing extends IdJagGrants {
  /** The person of an ID token issued to the client, and how they signed in; refused with invalid_grant otherwise. */
  idTokenSubject(client: TokenClient, token: string): Promise<{ userId: string; acr?: string }>;
  /** Whether the client's own application refuses the person at token exchange (docs/application-access.md). */
  refuses(client: TokenClient, person: { id: string; orgId: string }): Promise<boolean>;
  /** The one answer for a person the client may not serve, and for one its application does not admit. */
  subjectNotServed: string;
  subjectNotAdmitted: string;
  /** The instance's current signing key: the ID-JAG is signed as its ID tokens are. */
  signingKey: (Record<string, unknown> & { alg: string; kid: string }) | undefined;
}

/** Redeeming an ID-JAG: the JWT bearer grant (RFC 7523 §2.1). */
export interface IdJagRedeeming extends IdJagGrants {
  /** Whether this is the first use of `jti` under `scope` (kept until `untilMs`, across processes). */
  firstUse(scope: string, jti: string, untilMs: number): Promise<boolean>;
  /** Issues an access token for one resource on a new grant of `scope` to the account, and records it on the request. */
  issueResourceToken(
    ctx: OidcContext,
    token: { accountId: string; resource: string; scope: string; format: 'jwt' | 'opaque' },
  ): Promise<{ accessToken: string; expiresIn: number }>;
}
