import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { Role } from '../../common/auth/roles.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { holdsOn, noRoles } from '../../users/acting/acting-rule.js';
import type { UserAccess } from '../../users/acting/user-access.service.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import type { FeaturesService } from '../../users/features.service.js';
import type { AccountFinder } from '../account/account.finder.js';
import { mayServe } from '../account/organization-boundary.js';
import { API_AUDIENCE_SCOPE, apiAudienceAllowed } from '../tokens/audience.js';
import { TOKEN_EXCHANGE_GRANT } from '../tokens/grant-types.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { resolveActor, resolveSubject } from './token-exchange.parties.js';
import type { Party } from './token-exchange.parties.js';
import { TokenType, allowedAs, needsActor } from './token-exchange.types.js';

/** Where the grant leaves the actor for `extraTokenClaims` (provider.factory.ts). */
export const ACTOR = Symbol('portcullis.actor');

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
 * and what is issued carries at most the subject token's scope and audience (SECURITY.md, "Token
 * exchange"). An actor token, or a `jwt` / `user_id` subject, is impersonation: it needs the
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
    if (!account) throw new errors.InvalidGrant('the subject cannot sign in');
    if (!mayServe(client, account)) throw new errors.InvalidGrant('the subject belongs to another organization than this client');
    // What the issued token may carry: the subject token's; a subject that is only a name (`jwt`,
    // `user_id`) is bounded by the actor's token instead.
    const bound = subject.scope === null && actor ? actor : subject;
    const scope = exchangedScope(p.scope, bound, client);
    if (p.audience !== undefined) {
      const within = new Set(bound.audience);
      if (!p.audience.split(' ').every((a) => within.has(a))) throw new errors.InvalidTarget('audience must be within the audience of the subject token');
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
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();
    const refreshToken = await issueRefreshToken(provider, ctx, { accountId: subject.userId, grantId, scope, impersonated: actor !== undefined });
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
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler, ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'audience', 'resource']);
}

/**
 * RFC 8693 §2.1 `scope`: the requested scope, which must stay within the bounding token's; none requested
 * means the bounding token's own (RFC 8693 leaves the default to the server). The Portcullis API scope
 * additionally needs a client allowed to hold it for users (SECURITY.md, "Applications get no more than
 * their owners").
 */
function exchangedScope(requested: string | undefined, bound: Party, client: { portcullis_kind?: string; portcullis_api_access?: boolean }): string {
  const allowed = new Set(bound.scope ?? ['openid']);
  const scopes = requested === undefined ? [...allowed] : [...new Set(requested.split(' ').filter(Boolean))];
  const beyond = scopes.filter((s) => !allowed.has(s));
  if (beyond.length > 0) throw new errors.InvalidScope(`the scope ${beyond.join(' ')} exceeds the scope of the subject token`);
  if (scopes.includes(API_AUDIENCE_SCOPE) && !apiAudienceAllowed(client)) throw new errors.InvalidScope(`this client may not obtain ${API_AUDIENCE_SCOPE} for a user`);
  return scopes.join(' ');
}

/**
 * Spec §B: a refresh token when `offline_access` is requested, for a client registered for the
 * refresh_token grant. Not for impersonation: a refreshed token would no longer carry the `act` claim
 * naming the actor, so impersonation stays bounded by one access token's lifetime.
 */
async function issueRefreshToken(provider: any, ctx: OidcContext, token: { accountId: string; grantId: string; scope: string; impersonated: boolean }): Promise<string | undefined> {
  const client = ctx.oidc.client;
  if (token.impersonated || !token.scope.split(' ').includes('offline_access') || !client.grantTypeAllowed('refresh_token')) return undefined;
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
    const subject = await manager.findOneByOrFail(UserEntity, { id: subjectId });
    const actor = (await deps.access.rolesOf(manager, [actorId])).get(actorId) ?? noRoles();
    if (!holdsOn(actor, subject.orgId, Role.OrgOwner)) throw new errors.InvalidGrant('the actor may not impersonate users of this organization');
    try {
      await deps.access.assertMayActOn(manager, actorId, subject.id);
    } catch (error) {
      if (error instanceof DomainError) throw new errors.InvalidGrant(`the actor may not impersonate this user: ${error.message}`);
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
