import type Provider from 'oidc-provider';
import { createPublicKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { errors } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { applicationKeyByClientId, userById } from '../../users/queries/grant-parties.js';
import { accountsGrantedTo, rootGrantOf, sessionOfIdToken } from '../adapter/exchange-ties.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { tokenAudience } from '../tokens/audience.js';
import { TokenType } from './token-exchange.types.js';
import { ASSERTION_CLOCK_TOLERANCE_S, MAX_ASSERTION_LIFETIME_S, assertionLifetimeProblem } from './assertion-lifetime.js';
import { AssertionReplayGuard } from './assertion-replay.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';
import { actOf, isActClaim } from './impersonation.js';
import type { ActClaim } from './impersonation.js';
import { SUBJECT_NOT_SERVED, invalidGrant } from '../provider/oauth-errors.js';

/** What a presented subject or actor token stands for, and the most a token exchanged for it may carry. */
export interface Party {
  userId: string;
  /** The audience of the presented token; an exchanged token's audience stays within it. */
  audience: string[];
  /** The scope of the presented token; an exchanged token's scope stays within it. Null: the token names a user only. */
  scope: string[] | null;
  /** The impersonation the presented token carries; it survives the exchange (impersonation.ts). */
  act?: ActClaim;
  /** How the sign-in behind the token was authenticated, for `mfa: "required"` and the exchanged token. */
  acr?: string;
  /** The grant the exchanged token is tied to: it dies with it (exchange-ties.ts). */
  rootGrantId?: string;
  /** When the presented token expires (epoch seconds): an exchanged token never outlives it. */
  expiresAt?: number;
}

interface PartyDeps {
  dataSource: DataSource;
  hasher: SecretHasher;
  pairwise: PairwiseSubjects;
  ownJwts: JwtTokenIds;
  issuer: string;
  uow: UnitOfWork;
}

interface RequestingClient {
  clientId: string;
  /** OIDC Core §8: what the `sub` of the ID tokens it was issued is made of. */
  subjectType?: string;
  redirectUris: string[];
}

/** OIDC Core §5.4: which scope each claim of an ID token was released under. */
const SCOPE_OF_CLAIM: Record<string, string> = {
  name: 'profile',
  given_name: 'profile',
  family_name: 'profile',
  nickname: 'profile',
  preferred_username: 'profile',
  gender: 'profile',
  locale: 'profile',
  zoneinfo: 'profile',
  profile: 'profile',
  updated_at: 'profile',
  email: 'email',
  email_verified: 'email',
  phone_number: 'phone',
  phone_number_verified: 'phone',
  address: 'address',
  groups: 'groups',
  roles: 'roles',
};

/**
 * The subject token (RFC 8693 §2.1): it must have been issued to the requesting client or name it in
 * its audience, so one client cannot turn another client's tokens into its own (SECURITY.md, "Token
 * exchange"). `jwt` and `user_id` subjects name a user without a token of that user: impersonation,
 * bounded by the actor instead.
 */
export async function resolveSubject(provider: Provider, deps: PartyDeps, client: RequestingClient, token: string, type: string): Promise<Party> {
  switch (type) {
    case TokenType.accessToken:
      return accessTokenParty(provider, deps, client, token, 'subject');
    case TokenType.idToken:
      return idTokenParty(deps, client, token);
    case TokenType.jwt:
      return { userId: await clientSignedSubject(deps, client.clientId, token), audience: [client.clientId], scope: null };
    case TokenType.userId: {
      const user = await userById(deps.dataSource, token);
      if (!user) throw invalidGrant(SUBJECT_NOT_SERVED);
      return { userId: user.id, audience: [], scope: null };
    }
    default:
      throw new errors.InvalidRequest('unsupported token type');
  }
}

/** RFC 8693 §4.1: the actor of an impersonation is an access token this very client obtained for its user. */
export async function resolveActor(provider: Provider, deps: PartyDeps, client: RequestingClient, token: string): Promise<Party> {
  return accessTokenParty(provider, deps, client, token, 'actor');
}

async function accessTokenParty(provider: Provider, deps: PartyDeps, client: RequestingClient, token: string, role: 'subject' | 'actor'): Promise<Party> {
  const found = (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
  if (!found?.isValid) throw invalidGrant(`the ${role} access token is not valid`);
  // A DPoP-bound token is used only with a proof of its key (RFC 9449 §7.2), which this grant does not take:
  // exchanging it would turn a stolen bound token into an unbound one.
  if (found.jkt) throw invalidGrant(`the ${role} access token is DPoP-bound and cannot be exchanged`);
  // A token whose grant ended (refresh token revoked, logout, a grant it was exchanged from) is dead.
  if (found.grantId && !(await provider.Grant.find(found.grantId))) throw invalidGrant(`the ${role} access token is not valid`);
  const audience = await tokenAudience(deps.dataSource, found);
  // An application's own token (a Shared Signals receiver's `ssf.manage`) names no user and no audience: it is
  // exchanged for nothing (docs/signals.md, "Receivers"); a machine user's own token is its subject.
  if (found.kind === 'ClientCredentials' && audience.length === 0)
    throw invalidGrant(`the ${role} access token is an application's own, exchanged for nothing`);
  const issuedToClient = found.clientId === client.clientId;
  if (role === 'actor' && !issuedToClient) throw invalidGrant('the actor token was not issued to this client');
  if (role === 'subject' && !issuedToClient && !audience.includes(client.clientId)) {
    throw invalidGrant('the subject token was neither issued to this client nor names it in its audience');
  }
  return {
    userId: found.accountId ?? found.clientId,
    audience,
    scope: String(found.scope ?? '')
      .split(' ')
      .filter(Boolean),
    act: actOf(found),
    acr: acrOf(found),
    rootGrantId: found.grantId ? await rootGrantOf(deps.dataSource, deps.hasher, found.grantId) : undefined,
    expiresAt: found.exp,
  };
}

function acrOf(token: unknown): string | undefined {
  const acr = (token as { extra?: { acr?: unknown } }).extra?.acr;
  return typeof acr === 'string' ? acr : undefined;
}

/**
 * An ID token signed by this instance, unexpired, issued to (or naming) the requesting client. A JWT
 * access token (`typ: at+jwt`, RFC 9068 §2.1) is never one, even with a valid signature: a revoked access
 * token must not come back as an "ID token".
 */
async function idTokenParty(deps: PartyDeps, client: RequestingClient, token: string): Promise<Party> {
  let typ: string | undefined;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch {
    throw invalidGrant('the id_token is not a JWT');
  }
  if (typ !== undefined && typ.toLowerCase() !== 'jwt') throw invalidGrant(`a token of type ${typ} is not an id_token`);
  const claims = await deps.ownJwts.verify(token);
  if (!claims?.sub) throw invalidGrant('the id_token is not valid');
  const audience = [claims.aud].flat().filter((a): a is string => typeof a === 'string');
  if (!audience.includes(client.clientId) && claims.azp !== client.clientId) throw invalidGrant('the id_token was not issued to this client');
  const scope = ['openid', ...new Set(Object.keys(claims).flatMap((claim) => SCOPE_OF_CLAIM[claim] ?? []))];
  // SECURITY.md, "Who may act on whom" ("a user's access dies with it"): an ID token speaks for its sign-in only while that lasts.
  const issuedTo = claims.azp ?? audience[0];
  const userId = await userOfSubject(deps, client, claims.sub);
  const session =
    userId !== undefined && typeof claims.sid === 'string' && typeof issuedTo === 'string'
      ? await sessionOfIdToken(deps.dataSource, userId, issuedTo, claims.sid)
      : undefined;
  if (!userId || !session) throw invalidGrant('the sign-in this id_token came from has ended');
  return {
    userId,
    audience,
    scope,
    act: isActClaim(claims.act) ? claims.act : undefined,
    acr: typeof claims.acr === 'string' ? claims.acr : undefined,
    rootGrantId: session.grantId ? await rootGrantOf(deps.dataSource, deps.hasher, session.grantId) : undefined,
    expiresAt: claims.exp,
  };
}

/**
 * The user an ID token's `sub` names to this client: the user id itself, or for a pairwise client (OIDC Core §8) the
 * one of its granted users whose pairwise `sub` it is. The token was issued to this client (checked before), so its
 * `sub` is this client's.
 */
async function userOfSubject(deps: PartyDeps, client: RequestingClient, sub: string): Promise<string | undefined> {
  if (client.subjectType !== 'pairwise') return sub;
  const granted = await accountsGrantedTo(deps.dataSource, client.clientId);
  return granted.find((userId) => deps.pairwise.subjectFor(client, userId) === sub);
}

/**
 * A JWT the client signed with one of its application keys, naming the user in `sub`. Like a JWT-profile
 * assertion (RFC 7523 §3) it names this server in `aud`, carries `exp` within an hour of issue
 * (assertion-lifetime.ts) and a `jti` accepted once until it expires, across processes.
 */
async function clientSignedSubject(deps: PartyDeps, clientId: string, jwt: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwt).kid;
  } catch {
    throw invalidGrant('the subject token is not a JWT');
  }
  const key = kid ? await applicationKeyByClientId(deps.dataSource, clientId, kid) : null;
  if (!key) throw invalidGrant('the subject token is not signed by a key of this client');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(jwt, createPublicKey(key.publicKey), {
      issuer: clientId,
      audience: [deps.issuer, `${deps.issuer}${OIDC_ROUTES.token}`],
      maxTokenAge: MAX_ASSERTION_LIFETIME_S,
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      clockTolerance: ASSERTION_CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    throw invalidGrant(`invalid subject token: ${(error as Error).message}`);
  }
  const lifetime = assertionLifetimeProblem(payload);
  if (lifetime) throw invalidGrant(`invalid subject token: ${lifetime}`);
  if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || payload.jti === '')
    throw invalidGrant('invalid subject token: "sub" and "jti" must be strings');
  const usableUntilMs = (payload.exp! + ASSERTION_CLOCK_TOLERANCE_S) * 1000;
  if (!(await new AssertionReplayGuard(deps.uow).firstUse(`token-exchange:${clientId}`, payload.jti, usableUntilMs))) {
    throw invalidGrant('the subject token was already used: each "jti" is accepted once until it expires');
  }
  return payload.sub;
}
