import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { AccountFinder } from '../account/account.finder.js';
import { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { jwtForHandle } from '../tokens/structured-token.rewrite.js';
import { requestLookups } from '../adapter/request-lookups.js';
import { apiResourceOf, tokenAudience, tokenUser } from '../tokens/audience.js';
import { isActive } from '../../users/rules/user-state.js';
import { actOf } from '../grants/impersonation.js';
import type { ActClaim } from '../grants/impersonation.js';
import type { ApplicationEntry, EntryClient } from '../../login/application-entry.js';

interface IntrospectedToken {
  kind: string;
  clientId: string;
  accountId?: string;
  aud?: string | string[];
  scope?: string;
  iat?: number;
}

/** What the introspection policy learned, for the response decoration in provider.holder.ts. */
export interface IntrospectionFacts {
  audience: string[];
  userId: string;
  /** `<userName>@<org primary domain>`. */
  username: string;
  /** Issued at, and so not before (introspection answers `nbf`; tokens are valid from issue). */
  iat?: number;
  /** A unique id of the token that is not the token: a JWT's own `jti`, else a digest of the opaque value. */
  jti: string;
  /** The user's claims of the granted scopes (docs/product-rules.md, "OpenID Connect and OAuth"). */
  claims: Record<string, unknown>;
}

/** Scopes whose claims introspection adds; a token without them costs no account read. */
const CLAIM_SCOPES = ['profile', 'email', 'phone', 'address', 'groups', 'roles'];

export const INTROSPECTION_FACTS = Symbol('portcullis.introspection');

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": introspection answers `active:true` only when the introspecting client's id, its project
 * id or (an API application) its resource URI is in the token's audience, and only while the token's user is active (state read on use); any
 * other case is oidc-provider's `{"active":false}`. The user (state on use, and the organization's
 * domain for `username`) was read with the token (oidc-payload.adapter.ts); the introspecting client's
 * project comes with the client.
 */
export function introspectionPolicy(
  dataSource: DataSource,
  accounts: AccountFinder,
  impersonationHolds: (act: ActClaim, subjectId: string) => Promise<boolean>,
  entry: ApplicationEntry,
) {
  return async (
    ctx: OidcContext,
    client: { clientId: string; portcullis_project_id?: string | null; portcullis_resource_uri?: string | null },
    token: IntrospectedToken,
  ): Promise<boolean> => {
    if (token.kind === 'RefreshToken') return false;
    const userId = token.accountId ?? token.clientId;
    const known = requestLookups(ctx)?.users.get(userId);
    const user = known !== undefined ? known : await tokenUser(dataSource, userId);
    // A client-credentials token of an application (not a machine user) has no user; none are issued.
    if (!user || !isActive(user)) return false;
    const audience = await tokenAudience(dataSource, token);
    const project = client.portcullis_project_id;
    // An API application also introspects tokens for its resource (docs/agents.md, "Resources").
    const resource = client.portcullis_resource_uri;
    const allowed =
      audience.includes(client.clientId) ||
      (typeof project === 'string' && audience.includes(project)) ||
      (typeof resource === 'string' && audience.includes(resource));
    if (!allowed) return false;
    // A user's token is no longer active once the user may not enter its application (docs/product-rules.md,
    // "Application access"); the token's client is the introspecting one or comes from the client cache.
    if (token.accountId !== undefined) {
      const tokenClient = token.clientId === client.clientId ? client : await ctx.oidc.provider.Client.find(token.clientId);
      if (!(await entry.admits(tokenClient as EntryClient | undefined, userId))) return false;
      // Nor once an API application its audience names (resource or project) does not admit the user, whichever
      // client it was issued to (docs/application-access.md, "Resources of a restricted API application").
      if (await entry.refusingResource(audience, userId)) return false;
    }
    // An impersonation ends with its actor's right to it (grants/impersonation.ts).
    const act = actOf(token);
    if (act && !(await impersonationHolds(act, userId))) return false;
    // A JWT arrives as a one-request handle (structured-token.rewrite.ts); the adapter verified it.
    const value = String(ctx.oidc.params.token);
    const jwtValue = JwtTokenIds.looksLikeJwt(value) ? value : jwtForHandle(ctx.req, value);
    const jwt = jwtValue ? decodeJwt(jwtValue) : undefined;
    ctx[INTROSPECTION_FACTS] = {
      audience,
      userId,
      username: `${user.userName}@${user.primaryDomain ?? ''}`,
      iat: token.iat ?? jwt?.iat,
      jti: typeof jwt?.jti === 'string' ? jwt.jti : createHash('sha256').update(`portcullis/token-id/${value}`).digest('base64url'),
      claims: await claimsOfScopes(accounts, userId, token.clientId, token.scope ?? '', apiResourceOf(token.aud)),
    } satisfies IntrospectionFacts;
    return true;
  };
}

/** The claims of the token's scopes, as its own client would read them: its resource's or its project's roles, say. */
async function claimsOfScopes(accounts: AccountFinder, userId: string, clientId: string, scope: string, resource?: string): Promise<Record<string, unknown>> {
  if (!scope.split(' ').some((s) => CLAIM_SCOPES.includes(s))) return {};
  const account = await accounts.find(userId, clientId, resource);
  return account ? account.claims('introspection', scope) : {};
}
