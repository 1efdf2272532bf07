import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { UserAccess } from '../../users/acting/user-access.service.js';
import type { FeaturesService } from '../../users/features.service.js';
import type { AccountFinder } from '../account/account.finder.js';
import { mayServe } from '../../login/client-kind.js';
import type { ApplicationEntry } from '../../login/application-entry.js';
import { tieGrant } from '../adapter/exchange-ties.js';
import { ACR_MFA } from '../../login/authentication-methods.js';
import { TOKEN_EXCHANGE_GRANT } from '../tokens/grant-types.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { assertInheritedImpersonation, authorizeImpersonation, chainedAct } from './impersonation.js';
import type { ActClaim } from './impersonation.js';
import { resolveActor, resolveSubject } from './token-exchange.parties.js';
import type { Party } from './token-exchange.parties.js';
import { exchangedAudience, exchangedScope, scopeBound } from './token-exchange.bounds.js';
import { TokenType, allowedAs, needsActor } from './token-exchange.types.js';
import { SUBJECT_NOT_ADMITTED, SUBJECT_NOT_SERVED, invalidGrant } from '../provider/oauth-errors.js';
import { refuseUnboundGrantOfDpopClient } from '../provider/dpop.js';
import { issueIdJag } from '../../agents/id-jag/id-jag.issue.js';
import type { IdJagServices } from '../../agents/id-jag/id-jag.services.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import type { IdJagIssuing } from '../../agents/provider-port.js';
import { ID_JAG_TOKEN_TYPE } from '../../agents/id-jag/id-jag.services.js';

/** Where the grant leaves the token's `act` and `acr` for `extraTokenClaims` (provider-tokens.ts). */
const EXTRAS = Symbol('portcullis.exchange-extras');

/**
 * The extra claims of an access token (oidc-provider's extraTokenClaims): RFC 8693 §4.1 `act` of an
 * exchanged token, and the `acr` of the sign-in behind every user's token (RFC 9068 §2.2.1), which a later
 * exchange checks against `mfa: "required"`. Stored with the token, so opaque tokens carry them too.
 */
export function tokenExtras(ctx: OidcContext): { act?: ActClaim; acr?: string } | undefined {
  const exchanged = ctx?.[EXTRAS] as { act?: ActClaim; acr?: string } | undefined;
  if (exchanged) return definedOnly(exchanged);
  const entities = ctx?.oidc?.entities;
  const acr: unknown =
    entities?.AuthorizationCode?.acr ?? entities?.RefreshToken?.acr ?? (ctx?.oidc?.route === 'authorization' ? ctx.oidc.session?.acr : undefined);
  return typeof acr === 'string' ? { acr } : undefined;
}

function definedOnly(extras: { act?: ActClaim; acr?: string }): { act?: ActClaim; acr?: string } | undefined {
  const out = Object.fromEntries(Object.entries(extras).filter(([, value]) => value !== undefined));
  return Object.keys(out).length > 0 ? out : undefined;
}

export interface TokenExchangeDeps {
  dataSource: DataSource;
  accounts: AccountFinder;
  features: FeaturesService;
  access: UserAccess;
  uow: UnitOfWork;
  events: EventStore;
  hasher: SecretHasher;
  pairwise: PairwiseSubjects;
  issuer: string;
  ownJwts: JwtTokenIds;
  accessTokenTtl: number;
  alg: string;
  loginPolicy: (orgId: string) => Promise<{ mfa: string }>;
  /** Who may enter which application (docs/product-rules.md, "Application access"). */
  entry: ApplicationEntry;
}

/**
 * RFC 8693 token exchange: refused with unsupported_grant_type until the `tokenExchange` feature is on.
 * The subject token must belong to the requesting client (issued to it, or naming it in its audience),
 * and what is issued carries at most the subject token's scope and audience, with an actor also at
 * most the actor token's scope (token-exchange.bounds.ts; SECURITY.md, "token exchange stays within its
 * subject"). An actor token, or a `jwt` / `user_id` subject, is impersonation: it needs the
 * `impersonation` feature, an actor token issued to this client, an actor who may act on the subject,
 * and records `user.impersonated`. Every exchanged token is bound to what it came
 * from: `act` carries over (impersonation.ts), the token is tied to the presented token's grant
 * (exchange-ties.ts), never outlives it, and `mfa: "required"` applies as at refresh.
 */
export function registerTokenExchangeGrant(provider: Provider, deps: TokenExchangeDeps & { idJag: IdJagServices; signingKey: PrivateJwk | undefined }): void {
  const idJag = idJagIssuing(provider, deps);
  const handler = async (ctx: OidcContext) => {
    if (!(await deps.features.isEnabled('tokenExchange'))) throw new errors.UnsupportedGrantType('token exchange is not enabled');
    refuseUnboundGrantOfDpopClient(ctx);
    const p = ctx.oidc.params as Record<string, string | undefined>;
    // An ID-JAG for another authorization server (docs/agents.md, "Enterprise-managed authorization").
    if (p.requested_token_type === ID_JAG_TOKEN_TYPE) return issueIdJag(ctx, idJag, deps);
    if (p.resource !== undefined) throw new errors.InvalidTarget('resource is not supported; use audience');
    const subjectType = p.subject_token_type ?? '';
    const requestedType = p.requested_token_type ?? TokenType.accessToken;
    if (!allowedAs(subjectType, 'subject')) throw new errors.InvalidRequest('subject_token_type is not supported');
    if (!allowedAs(requestedType, 'requested')) throw new errors.InvalidRequest('requested_token_type is not supported');
    if (p.actor_token !== undefined && !allowedAs(p.actor_token_type ?? '', 'actor'))
      throw new errors.InvalidRequest('actor_token_type is missing or not supported');
    if (needsActor(subjectType) && p.actor_token === undefined) throw new errors.InvalidRequest(`${subjectType} subjects need an actor_token`);

    const client = ctx.oidc.client;
    const actor = p.actor_token === undefined ? undefined : await resolveActor(provider, deps, client, p.actor_token);
    const subject = await resolveSubject(provider, deps, client, p.subject_token ?? '', subjectType);
    const account = await deps.accounts.find(subject.userId, client.clientId);
    if (!account || !mayServe(client, account)) throw invalidGrant(SUBJECT_NOT_SERVED);
    if (await deps.entry.refuses(client, { id: account.accountId, orgId: account.orgId }, 'token_exchange')) throw invalidGrant(SUBJECT_NOT_ADMITTED);
    const scope = exchangedScope(p.scope, scopeBound(subject, actor), client);
    // Repeatable (RFC 8693 §2.1), so possibly several values.
    const requestedAudience = ctx.oidc.params.audience as string | string[] | undefined;
    const audience = exchangedAudience(requestedAudience, subject, actor, client);
    // OIDC Core §2: an ID token's audience is the client it is issued to; it is never issued for another.
    if (requestedType === TokenType.idToken && requestedAudience !== undefined && audience.some((aud) => aud !== client.clientId)) {
      throw new errors.InvalidTarget('an id_token is issued for the requesting client only');
    }
    if (actor?.act) throw invalidGrant('an impersonation cannot act for another user');
    if (subject.act) await assertInheritedImpersonation(deps, subject.act, subject.userId);
    // Whose sign-in stands behind the exchange: the actor's when there is one, else the subject token's.
    const signedIn = actor ?? subject;
    const acr = await requireSecondFactorIfRequired(deps, signedIn, actor ? undefined : account.orgId);
    if (actor) await authorizeImpersonation(deps, actor.userId, subject.userId, client.clientId);
    const act = chainedAct(actor?.userId, subject.act);
    const expiresIn = lifetimeWithin(deps.accessTokenTtl, subject, actor);

    ctx.oidc.entity('Account', account);
    const idToken = async (scopeOfClaims: string) => {
      const token = new provider.IdToken(await account.claims('id_token', scopeOfClaims), { ctx });
      token.scope = scopeOfClaims;
      // Set beside the claims: the ID token's claim mask would drop `act` (RFC 8693 §4.1).
      for (const [claim, value] of Object.entries(definedOnly({ act, acr }) ?? {})) token.set(claim, value);
      return token.issue({ use: 'idtoken', expiresAt: Math.floor(Date.now() / 1000) + expiresIn });
    };
    if (requestedType === TokenType.idToken) {
      ctx.body = { access_token: await idToken(scope), issued_token_type: TokenType.idToken, token_type: 'N_A', expires_in: expiresIn, scope };
      return;
    }
    const grant = new provider.Grant({ clientId: client.clientId, accountId: subject.userId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    // The exchanged token lives and dies with the grant it came from.
    const rootGrantId = signedIn.rootGrantId;
    if (rootGrantId) await tieGrant(deps.uow, deps.hasher, grantId, rootGrantId);
    ctx.oidc.entity('Grant', grant);
    const at = new provider.AccessToken({ accountId: subject.userId, client, grantId, gty: 'token_exchange', scope, expiresIn });
    ctx[EXTRAS] = { act, acr };
    if (requestedType === TokenType.jwt) {
      const resource = `urn:portcullis:project:${client.portcullis_project_id ?? client.clientId}`;
      at.resourceServer = new provider.ResourceServer(resource, {
        audience: resource,
        scope,
        accessTokenTTL: expiresIn,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: deps.alg } },
      });
    }
    // Recorded on the token (and so its JWT `aud`): introspection answers only for these (tokens/audience.ts).
    at.aud = audience;
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();
    const refreshToken = await issueRefreshToken(provider, ctx, {
      accountId: subject.userId,
      grantId,
      scope,
      acr,
      impersonated: act !== undefined,
      narrowed: requestedAudience !== undefined,
    });
    const withIdToken = scope.split(' ').includes('openid') ? await idToken('openid') : undefined;
    ctx.body = {
      access_token: accessToken,
      issued_token_type: requestedType === TokenType.jwt ? TokenType.jwt : TokenType.accessToken,
      token_type: 'Bearer',
      expires_in: at.expiration,
      scope,
      id_token: withIdToken,
      refresh_token: refreshToken,
    };
  };
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    handler,
    ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'audience', 'resource'],
    ['audience'],
  );
}

/**
 * An exchanged token never outlives what it was exchanged from (docs/product-rules.md, "OpenID Connect and OAuth"): re-exchanging
 * must not renew a lifetime. Seconds, at most the usual access token lifetime.
 */
function lifetimeWithin(ttl: number, subject: Party, actor: Party | undefined): number {
  const now = Math.floor(Date.now() / 1000);
  const ends = [subject.expiresAt, actor?.expiresAt].filter((end): end is number => end !== undefined);
  const remaining = Math.min(ttl, ...ends.map((end) => end - now));
  if (remaining <= 0) throw invalidGrant('the presented token has expired');
  return remaining;
}

/**
 * `mfa: "required"` holds at the exchange as at refresh (refresh-second-factor.ts): the sign-in behind the
 * presented token must have had the second factor when its organization requires one. Returns that
 * sign-in's `acr`, which the exchanged tokens carry on.
 */
async function requireSecondFactorIfRequired(deps: TokenExchangeDeps, signedIn: Party, orgId: string | undefined): Promise<string | undefined> {
  const org = orgId ?? (await deps.accounts.find(signedIn.userId))?.orgId;
  if (org !== undefined && signedIn.acr !== ACR_MFA && (await deps.loginPolicy(org)).mfa === 'required') {
    throw invalidGrant('the organization requires a second factor: sign in again');
  }
  return signedIn.acr;
}

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": a refresh token when `offline_access` is requested, for a client registered for the
 * refresh_token grant (RFC 8693 §2.2.1: it is optional). Not for impersonation, nor for anything derived
 * from one: a refreshed token would no longer carry the `act` claim naming the actor, so impersonation
 * stays bounded by one access token's lifetime. Not for a requested audience either: a refreshed token
 * gets the client's usual audience, so the narrowing would not survive a refresh. It is tied to the
 * grant the subject came from, like the access token (exchange-ties.ts).
 */
async function issueRefreshToken(
  provider: Provider,
  ctx: OidcContext,
  token: { accountId: string; grantId: string; scope: string; acr?: string; impersonated: boolean; narrowed: boolean },
): Promise<string | undefined> {
  const client = ctx.oidc.client;
  if (token.impersonated || token.narrowed || !token.scope.split(' ').includes('offline_access') || !client.grantTypeAllowed('refresh_token')) return undefined;
  const rt = new provider.RefreshToken({
    accountId: token.accountId,
    client,
    grantId: token.grantId,
    gty: 'token_exchange',
    rotations: 0,
    scope: token.scope,
    acr: token.acr,
  });
  ctx.oidc.entity('RefreshToken', rt);
  return rt.save();
}

/** What the provider gives enterprise-managed authorization's issuing side (src/agents/provider-port.ts). */
function idJagIssuing(provider: Provider, deps: TokenExchangeDeps & { signingKey: PrivateJwk | undefined }): IdJagIssuing {
  return {
    issuer: deps.issuer,
    account: (userId) => deps.accounts.find(userId),
    invalidGrant,
    idTokenSubject: (client, token) => resolveSubject(provider, deps, client, token, TokenType.idToken),
    refuses: (client, person) => deps.entry.refuses(client, person, 'token_exchange'),
    subjectNotServed: SUBJECT_NOT_SERVED,
    subjectNotAdmitted: SUBJECT_NOT_ADMITTED,
    signingKey: deps.signingKey,
  };
}
