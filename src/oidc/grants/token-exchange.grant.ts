import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { Role } from '../../common/auth/roles.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { holdsOn, noRoles } from '../../users/acting/acting-rule.js';
import type { UserAccess } from '../../users/acting/user-access.service.js';
import { userByIdOrFail } from '../../users/queries/grant-parties.js';
import type { FeaturesService } from '../../users/features.service.js';
import type { AccountFinder } from '../account/account.finder.js';
import { mayServe } from '../account/organization-boundary.js';
import { TOKEN_EXCHANGE_GRANT } from '../tokens/grant-types.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { resolveActor, resolveSubject } from './token-exchange.parties.js';
import { exchangedAudience, exchangedScope, scopeBound } from './token-exchange.bounds.js';
import { TokenType, allowedAs, needsActor } from './token-exchange.types.js';
import { SUBJECT_NOT_SERVED, invalidGrant } from '../provider/oauth-errors.js';

/** Where the grant leaves the actor for `extraTokenClaims` (provider.factory.ts). */
const ACTOR = Symbol('portcullis.actor');

/** RFC 8693 §4.1 `act` claim of a token issued to an actor, for oidc-provider's extraTokenClaims. */
export function actClaim(ctx: OidcContext): { act: { sub: string } } | undefined {
  const actor = ctx?.[ACTOR];
  return typeof actor === 'string' ? { act: { sub: actor } } : undefined;
}

export interface TokenExchangeDeps {
  dataSource: DataSource;
  accounts: AccountFinder;
  features: FeaturesService;
  access: UserAccess;
  uow: UnitOfWork;
  events: EventStore;
  ownJwts: JwtTokenIds;
  accessTokenTtl: number;
  alg: string;
}

/**
 * RFC 8693 token exchange: refused with unsupported_grant_type until the `tokenExchange` feature is on.
 * The subject token must belong to the requesting client (issued to it, or naming it in its audience),
 * and what is issued carries at most the subject token's scope and audience, with an actor also at
 * most the actor token's scope (token-exchange.bounds.ts; SECURITY.md, "token exchange stays within its
 * subject"). An actor token, or a `jwt` / `user_id` subject, is impersonation: it needs the
 * `impersonation` feature, an actor token issued to this client, an actor who may act on the subject,
 * and records `user.impersonated`.
 */
export function registerTokenExchangeGrant(provider: any, deps: TokenExchangeDeps): void {
  const handler = async (ctx: OidcContext) => {
    if (!(await deps.features.isEnabled('tokenExchange'))) throw new errors.UnsupportedGrantType('token exchange is not enabled');
    const p = ctx.oidc.params as Record<string, string | undefined>;
    if (p.resource !== undefined) throw new errors.InvalidTarget('resource is not supported; use audience');
    const subjectType = p.subject_token_type ?? '';
    const requestedType = p.requested_token_type ?? TokenType.accessToken;
    if (!allowedAs(subjectType, 'subject')) throw new errors.InvalidRequest('subject_token_type is not supported');
    if (!allowedAs(requestedType, 'requested')) throw new errors.InvalidRequest('requested_token_type is not supported');
    if (p.actor_token !== undefined && !allowedAs(p.actor_token_type ?? '', 'actor')) throw new errors.InvalidRequest('actor_token_type is missing or not supported');
    if (needsActor(subjectType) && p.actor_token === undefined) throw new errors.InvalidRequest(`${subjectType} subjects need an actor_token`);

    const client = ctx.oidc.client;
    const actor = p.actor_token === undefined ? undefined : await resolveActor(provider, deps, client, p.actor_token);
    const subject = await resolveSubject(provider, deps, client, p.subject_token ?? '', subjectType);
    const account = await deps.accounts.find(subject.userId);
    if (!account || !mayServe(client, account)) throw invalidGrant(SUBJECT_NOT_SERVED);
    const scope = exchangedScope(p.scope, scopeBound(subject, actor), client);
    // Repeatable (RFC 8693 §2.1), so possibly several values.
    const requestedAudience = ctx.oidc.params.audience as string | string[] | undefined;
    const audience = exchangedAudience(requestedAudience, subject, actor, client);
    // OIDC Core §2: an ID token's audience is the client it is issued to; it is never issued for another.
    if (requestedType === TokenType.idToken && requestedAudience !== undefined && audience.some((aud) => aud !== client.clientId)) {
      throw new errors.InvalidTarget('an id_token is issued for the requesting client only');
    }
    if (actor) await authorizeImpersonation(deps, actor.userId, subject.userId, client.clientId);

    ctx.oidc.entity('Account', account);
    if (requestedType === TokenType.idToken) {
      const token = new provider.IdToken({ ...(await account.claims('id_token', scope)), ...(actor ? { act: { sub: actor.userId } } : {}) }, { ctx });
      token.scope = scope;
      ctx.body = { access_token: await token.issue({ use: 'idtoken' }), issued_token_type: TokenType.idToken, token_type: 'N_A', expires_in: deps.accessTokenTtl, scope };
      return;
    }
    const grant = new provider.Grant({ clientId: client.clientId, accountId: subject.userId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    ctx.oidc.entity('Grant', grant);
    const at = new provider.AccessToken({ accountId: subject.userId, client, grantId, gty: 'token_exchange', scope });
    // RFC 8693 §4.1: the `act` claim names the acting party (extraTokenClaims adds it to the token).
    if (actor) ctx[ACTOR] = actor.userId;
    if (requestedType === TokenType.jwt) {
      const resource = `urn:portcullis:project:${client.portcullis_project_id ?? client.clientId}`;
      at.resourceServer = new provider.ResourceServer(resource, { audience: resource, scope, accessTokenTTL: deps.accessTokenTtl, accessTokenFormat: 'jwt', jwt: { sign: { alg: deps.alg } } });
    }
    // Recorded on the token (and so its JWT `aud`): introspection answers only for these (tokens/audience.ts).
    at.aud = audience;
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();
    const refreshToken = await issueRefreshToken(provider, ctx, { accountId: subject.userId, grantId, scope, impersonated: actor !== undefined, narrowed: requestedAudience !== undefined });
    let idToken: string | undefined;
    if (scope.split(' ').includes('openid')) {
      const token = new provider.IdToken({ ...(await account.claims('id_token', 'openid')) }, { ctx });
      token.scope = 'openid';
      idToken = await token.issue({ use: 'idtoken' });
    }
    ctx.body = {
      access_token: accessToken,
      issued_token_type: requestedType === TokenType.jwt ? TokenType.jwt : TokenType.accessToken,
      token_type: 'Bearer',
      expires_in: at.expiration,
      scope,
      id_token: idToken,
      refresh_token: refreshToken,
    };
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler, ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'audience', 'resource'], ['audience']);
}

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": a refresh token when `offline_access` is requested, for a client registered for the
 * refresh_token grant (RFC 8693 §2.2.1: it is optional). Not for impersonation: a refreshed token would
 * no longer carry the `act` claim naming the actor, so impersonation stays bounded by one access token's
 * lifetime. Not for a requested audience either: a refreshed token gets the client's usual audience, so
 * the narrowing would not survive a refresh.
 */
async function issueRefreshToken(provider: any, ctx: OidcContext, token: { accountId: string; grantId: string; scope: string; impersonated: boolean; narrowed: boolean }): Promise<string | undefined> {
  const client = ctx.oidc.client;
  if (token.impersonated || token.narrowed || !token.scope.split(' ').includes('offline_access') || !client.grantTypeAllowed('refresh_token')) return undefined;
  const rt = new provider.RefreshToken({ accountId: token.accountId, client, grantId: token.grantId, gty: 'token_exchange', rotations: 0, scope: token.scope });
  ctx.oidc.entity('RefreshToken', rt);
  return rt.save();
}

/**
 * Impersonation needs the feature, an actor who may act on the subject (holds every role it holds), and
 * an actor who administers the subject: IAM_OWNER, or ORG_OWNER of the subject's organization.
 */
async function authorizeImpersonation(deps: TokenExchangeDeps, actorId: string, subjectId: string, clientId: string): Promise<void> {
  if (!(await deps.features.isEnabled('impersonation'))) throw new errors.InvalidRequest('impersonation is not enabled');
  await deps.uow.run(async (manager) => {
    const subject = await userByIdOrFail(manager, subjectId);
    const actor = (await deps.access.rolesOf(manager, [actorId])).get(actorId) ?? noRoles();
    if (!holdsOn(actor, subject.orgId, Role.OrgOwner)) throw invalidGrant('the actor may not impersonate users of this organization');
    try {
      await deps.access.assertMayActOn(manager, actorId, subject.id);
    } catch (error) {
      if (error instanceof DomainError) throw invalidGrant(`the actor may not impersonate this user: ${error.message}`);
      throw error;
    }
    await deps.events.push(manager, {
      type: 'user.impersonated',
      aggregateType: 'user',
      aggregateId: subject.id,
      resourceOwner: subject.orgId,
      editorUserId: actorId,
      payload: { actorUserId: actorId, clientId },
    });
  });
}
