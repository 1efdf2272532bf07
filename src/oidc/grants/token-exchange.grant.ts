import { createPublicKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { Role } from '../../common/auth/roles.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { ApplicationEntity } from '../../users/entities/application.entity.js';
import { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import type { FeaturesService } from '../../users/features.service.js';
import type { MembershipsService } from '../../users/memberships.service.js';
import type { AccountFinder } from '../account/account.finder.js';
import { tokenAudience } from '../tokens/audience.js';
import { TOKEN_EXCHANGE_GRANT } from '../tokens/grant-types.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
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
  memberships: MembershipsService;
  uow: UnitOfWork;
  events: EventStore;
  ownJwts: JwtTokenIds;
  accessTokenTtl: number;
  alg: string;
}

interface Party {
  userId: string;
  audience: string[];
}

/**
 * RFC 8693 token exchange (spec §B, DESIGN §5): refused with unsupported_grant_type until the
 * `tokenExchange` feature is on; an actor token, or a `jwt` / `user_id` subject, is impersonation and
 * needs the `impersonation` feature and the actor's permission (IAM_OWNER, or ORG_OWNER of the
 * subject's organization), and records `user.impersonated`.
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
    const actor = p.actor_token === undefined ? undefined : await resolve(provider, deps, client, p.actor_token, p.actor_token_type!);
    const subject = await resolve(provider, deps, client, p.subject_token ?? '', subjectType);
    const account = await deps.accounts.find(subject.userId);
    if (!account) throw new errors.InvalidGrant('the subject cannot sign in');
    if (actor) await authorizeImpersonation(deps, actor.userId, subject.userId, client.clientId);
    if (p.audience !== undefined) {
      const combined = new Set([...subject.audience, ...(actor?.audience ?? [])]);
      if (!p.audience.split(' ').every((a) => combined.has(a))) throw new errors.InvalidTarget('audience must be within the audiences of the subject and actor tokens');
    }

    const scope = String(p.scope ?? 'openid').split(' ').filter(Boolean).join(' ');
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

/** The user a presented token stands for, by its declared type (spec §B matrix). */
async function resolve(provider: any, deps: TokenExchangeDeps, client: { clientId: string; portcullis_kind?: string }, token: string, type: string): Promise<Party> {
  switch (type) {
    case TokenType.accessToken: {
      const found = (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
      if (!found?.isValid) throw new errors.InvalidGrant('the access token is not valid');
      return { userId: found.accountId ?? found.clientId, audience: await tokenAudience(deps.dataSource, found) };
    }
    case TokenType.idToken: {
      const claims = await deps.ownJwts.verify(token);
      if (!claims?.sub) throw new errors.InvalidGrant('the id_token is not valid');
      return { userId: claims.sub, audience: [claims.aud].flat().filter((a): a is string => typeof a === 'string') };
    }
    case TokenType.jwt:
      return { userId: await clientSignedSubject(deps, client.clientId, token), audience: [client.clientId] };
    case TokenType.userId: {
      const user = await deps.dataSource.getRepository(UserEntity).findOneBy({ id: token });
      if (!user) throw new errors.InvalidGrant('unknown user');
      return { userId: user.id, audience: [] };
    }
    default:
      throw new errors.InvalidRequest('unsupported token type');
  }
}

/** A JWT the client signed with one of its application keys, naming the user in `sub`. */
async function clientSignedSubject(deps: TokenExchangeDeps, clientId: string, jwt: string): Promise<string> {
  const app = await deps.dataSource.getRepository(ApplicationEntity).findOneBy({ clientId });
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwt).kid;
  } catch {
    throw new errors.InvalidGrant('the subject token is not a JWT');
  }
  const key = app && kid ? await deps.dataSource.getRepository(PublicKeyEntity).findOneBy({ id: kid, ownerType: 'application', ownerId: app.id }) : null;
  if (!key) throw new errors.InvalidGrant('the subject token is not signed by a key of this client');
  try {
    const { payload } = await jwtVerify(jwt, createPublicKey(key.publicKey), { issuer: clientId, maxTokenAge: 3600 });
    if (typeof payload.sub !== 'string') throw new Error('sub missing');
    return payload.sub;
  } catch (error) {
    throw new errors.InvalidGrant(`invalid subject token: ${(error as Error).message}`);
  }
}

async function authorizeImpersonation(deps: TokenExchangeDeps, actorId: string, subjectId: string, clientId: string): Promise<void> {
  if (!(await deps.features.isEnabled('impersonation'))) throw new errors.InvalidRequest('impersonation is not enabled');
  const subject = await deps.dataSource.getRepository(UserEntity).findOneByOrFail({ id: subjectId });
  const roles = await deps.memberships.rolesOf(actorId);
  const allowed = roles.instanceRoles.has(Role.IamOwner) || (roles.orgRoles.get(subject.orgId)?.has(Role.OrgOwner) ?? false);
  if (!allowed) throw new errors.InvalidGrant('the actor may not impersonate this user');
  await deps.uow.run((manager) =>
    deps.events.push(manager, {
      type: 'user.impersonated',
      aggregateType: 'user',
      aggregateId: subject.id,
      resourceOwner: subject.orgId,
      editorUserId: actorId,
      payload: { actorUserId: actorId, clientId },
    }),
  );
}
