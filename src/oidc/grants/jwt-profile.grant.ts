import type Provider from 'oidc-provider';
import { createHash, createPublicKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import type { OidcContext } from 'oidc-provider';
import { machineUserKey } from '../../users/queries/grant-parties.js';
import { API_AUDIENCE } from '../tokens/audience.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';
import { JWT_BEARER_GRANT } from '../tokens/grant-types.js';
import { AssertionReplayGuard } from './assertion-replay.js';
import { refuseUnboundGrantOfDpopClient } from '../provider/dpop.js';
import { ASSERTION_CLOCK_TOLERANCE_S, MAX_ASSERTION_LIFETIME_S, assertionLifetimeProblem } from './assertion-lifetime.js';
import { invalidGrant } from '../provider/oauth-errors.js';
import { idJagRedeemer, isIdJagRequest } from '../../agents/id-jag/id-jag.redeem.js';
import type { IdJagRedeemDeps } from '../../agents/id-jag/id-jag.redeem.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { AccountFinder } from '../account/account.finder.js';
import type { IdJagRedeeming } from '../../agents/provider-port.js';
import { issueJwtBearerToken } from './jwt-bearer-token.js';

/** RFC 7523 §3: the assertion may be at most this old. */

interface JwtProfileDeps extends IdJagRedeemDeps {
  uow: UnitOfWork;
  accounts: AccountFinder;
  issuer: string;
  accessTokenTtl: number;
  alg: string;
}

/**
 * The JWT profile grant (RFC 7523 §2.1) for machine users: the assertion, signed with a machine key,
 * is the credential (iss = sub = user id, aud = issuer or token endpoint, header kid = key id). Tokens are issued like
 * client_credentials ones (the API audience, the machine user's token format) plus an id_token of the
 * service user when `openid` is requested (docs/product-rules.md, "OpenID Connect and OAuth").
 */
export function registerJwtProfileGrant(provider: Provider, deps: JwtProfileDeps): void {
  const replays = new AssertionReplayGuard(deps.uow);
  const redeemIdJag = idJagRedeemer(idJagRedeeming(provider, replays, deps), deps);
  const handler = async (ctx: OidcContext) => {
    refuseUnboundGrantOfDpopClient(ctx);
    const { client, params } = ctx.oidc;
    // An application's assertion is an ID-JAG (docs/agents.md, "Enterprise-managed authorization"); a machine user's, its own.
    if (isIdJagRequest(client, String(params.assertion ?? ''))) return redeemIdJag(ctx);
    const userId = await verifyAssertion(deps, replays, client.clientId, String(params.assertion ?? ''));
    // Said only to a holder of the user's key: the assertion is verified by now.
    const account = await deps.accounts.find(userId);
    if (!account) throw invalidGrant('the service user is not active');
    ctx.oidc.entity('Account', account);
    const scope = String(params.scope ?? '')
      .split(' ')
      .filter(Boolean)
      .join(' ');
    const { accessToken, expiresIn } = await issueJwtBearerToken(provider, ctx, {
      accountId: userId,
      resource: API_AUDIENCE,
      scope,
      format: client.portcullis_access_token_type === 'jwt' ? 'jwt' : 'opaque',
      ttl: deps.accessTokenTtl,
      alg: deps.alg,
    });
    let idToken: string | undefined;
    if (scope.split(' ').includes('openid')) {
      const token = new provider.IdToken({ ...(await account.claims('id_token', scope)), auth_time: Math.floor(Date.now() / 1000) }, { ctx });
      token.scope = scope;
      idToken = await token.issue({ use: 'idtoken' });
    }
    // Every token response names the scope (RFC 6749 §5.1, docs/product-rules.md): the granted scope, empty when none was asked.
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope, id_token: idToken };
  };
  provider.registerGrantType(JWT_BEARER_GRANT, handler, ['assertion', 'scope']);
}

/**
 * Verifies the assertion with the key its kid names among the keys of the client's machine user (so a
 * kid of any other user, of whatever organization, is just an unknown key), then records its `jti` (or,
 * without one, the hash of the assertion) so that it is accepted once; returns the user id. Only a verified assertion is recorded: unsigned junk
 * cannot use up another client's jti values.
 */
async function verifyAssertion(deps: JwtProfileDeps, replays: AssertionReplayGuard, clientId: string, assertion: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(assertion).kid;
  } catch {
    throw invalidGrant('the assertion is not a JWT');
  }
  const key = kid ? await machineUserKey(deps.dataSource, clientId, kid) : null;
  if (!key) throw invalidGrant('unknown key: the header "kid" names no key of this service user');
  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw invalidGrant('the key named by "kid" has expired');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createPublicKey(key.publicKey), {
      issuer: key.ownerId,
      subject: key.ownerId,
      // RFC 7523 §3: the audience identifies the authorization server — its issuer or its token endpoint.
      audience: [deps.issuer, `${deps.issuer}${OIDC_ROUTES.token}`],
      maxTokenAge: MAX_ASSERTION_LIFETIME_S,
      // "jti" is optional in RFC 7523 §3: an assertion without one is told apart by its own bytes (below).
      requiredClaims: ['iat', 'exp'],
      clockTolerance: ASSERTION_CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    throw invalidGrant(assertionFailure(error));
  }
  const lifetime = assertionLifetimeProblem(payload);
  if (lifetime) throw invalidGrant(`invalid assertion: ${lifetime}`);
  if (payload.jti !== undefined && (typeof payload.jti !== 'string' || payload.jti === ''))
    throw invalidGrant('invalid assertion: "jti", when sent, must be a non-empty string');
  // Accepted until exp, and never after iat + the maximum age, whichever comes first.
  const usableUntilS = Math.min(payload.exp!, payload.iat! + MAX_ASSERTION_LIFETIME_S) + ASSERTION_CLOCK_TOLERANCE_S;
  // Each jti once; an assertion without one is itself used once (the hash of the whole JWT), across processes.
  const use = payload.jti ?? `assertion:${createHash('sha256').update(assertion).digest('base64url')}`;
  if (!(await replays.firstUse(key.ownerId, use, usableUntilS * 1000))) {
    throw invalidGrant('the assertion was already used: each assertion, and each "jti", is accepted once until it expires (RFC 7523 §3)');
  }
  return String(payload.sub);
}

/** Which RFC 7523 §3 check the assertion failed, in words (jose's message keeps the claim name). */
function assertionFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return `the assertion has expired: ${error.message}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature: the assertion is not signed by the key named by "kid"';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return `the assertion is not yet valid: ${error.message}`;
    if (error.claim === 'aud') return `wrong audience: "aud" must be the issuer or the token endpoint URL (${error.message})`;
    if (error.claim === 'iss' || error.claim === 'sub') return `wrong issuer or subject: "iss" and "sub" must be the service user id (${error.message})`;
    if (error.claim === 'iat') return `the assertion is too old or issued in the future: ${error.message}`;
  }
  return `invalid assertion: ${(error as Error).message}`;
}

/** The unverified subject of an assertion: which client the request is for (verified by the grant). */
export function assertionSubject(assertion: string): string | undefined {
  try {
    const sub = decodeJwt(assertion).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** What the provider gives enterprise-managed authorization's redeeming side: the JWT bearer grant's token. */
function idJagRedeeming(provider: Provider, replays: AssertionReplayGuard, deps: JwtProfileDeps): IdJagRedeeming {
  return {
    issuer: deps.issuer,
    account: (userId) => deps.accounts.find(userId),
    invalidGrant,
    firstUse: (scope, jti, untilMs) => replays.firstUse(scope, jti, untilMs),
    issueResourceToken: (ctx, token) => issueJwtBearerToken(provider, ctx, { ...token, ttl: deps.accessTokenTtl, alg: deps.alg }),
  };
}
