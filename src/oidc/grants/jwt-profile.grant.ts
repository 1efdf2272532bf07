import { createPublicKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import type { AccountFinder } from '../account/account.finder.js';
import { API_AUDIENCE } from '../tokens/audience.js';
import { JWT_BEARER_GRANT } from '../tokens/grant-types.js';

/** RFC 7523 §3: the assertion may be at most this old. */
const MAX_ASSERTION_AGE_S = 3600;

export interface JwtProfileDeps {
  dataSource: DataSource;
  accounts: AccountFinder;
  issuer: string;
  accessTokenTtl: number;
  alg: string;
}

/**
 * The JWT profile grant (RFC 7523 §2.1) for machine users: the assertion, signed with a machine key,
 * is the credential (iss = sub = user id, aud = issuer, header kid = key id). Tokens are issued like
 * client_credentials ones (the API audience, the machine user's token format) plus an id_token of the
 * service user when `openid` is requested (DESIGN §5).
 */
export function registerJwtProfileGrant(provider: any, deps: JwtProfileDeps): void {
  const handler = async (ctx: OidcContext) => {
    const { client, params } = ctx.oidc;
    const userId = await verifyAssertion(deps, String(params.assertion ?? ''));
    if (userId !== client.clientId) throw new errors.InvalidGrant('the assertion subject is not the client');
    const account = await deps.accounts.find(userId);
    if (!account) throw new errors.InvalidGrant('the service user cannot sign in');
    ctx.oidc.entity('Account', account);
    const scope = String(params.scope ?? '').split(' ').filter(Boolean).join(' ');
    const grant = new provider.Grant({ clientId: client.clientId, accountId: userId });
    grant.addOIDCScope(scope);
    grant.addResourceScope(API_AUDIENCE, scope);
    const grantId = await grant.save();
    ctx.oidc.entity('Grant', grant);
    const at = new provider.AccessToken({ accountId: userId, client, grantId, gty: 'jwt_bearer', scope: scope || undefined });
    at.resourceServer = new provider.ResourceServer(API_AUDIENCE, {
      audience: API_AUDIENCE,
      scope,
      accessTokenTTL: deps.accessTokenTtl,
      accessTokenFormat: client.portcullis_access_token_type === 'jwt' ? 'jwt' : 'opaque',
      jwt: { sign: { alg: deps.alg } },
    });
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();
    let idToken: string | undefined;
    if (scope.split(' ').includes('openid')) {
      const token = new provider.IdToken({ ...(await account.claims('id_token', scope)), auth_time: Math.floor(Date.now() / 1000) }, { ctx });
      token.scope = scope;
      idToken = await token.issue({ use: 'idtoken' });
    }
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: at.expiration, scope: scope || undefined, id_token: idToken };
  };
  provider.registerGrantType(JWT_BEARER_GRANT, handler, ['assertion', 'scope']);
}

/** Verifies the assertion with the machine key named by its kid; returns the user id. */
async function verifyAssertion(deps: JwtProfileDeps, assertion: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(assertion).kid;
  } catch {
    throw new errors.InvalidGrant('the assertion is not a JWT');
  }
  const key = kid ? await deps.dataSource.getRepository(PublicKeyEntity).findOneBy({ id: kid, ownerType: 'machine' }) : null;
  if (!key || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) throw new errors.InvalidGrant('unknown or expired key');
  try {
    const { payload } = await jwtVerify(assertion, createPublicKey(key.publicKey), {
      issuer: key.ownerId,
      subject: key.ownerId,
      audience: deps.issuer,
      maxTokenAge: MAX_ASSERTION_AGE_S,
      requiredClaims: ['iat', 'exp'],
      clockTolerance: 5,
    });
    return String(payload.sub);
  } catch (error) {
    throw new errors.InvalidGrant(`invalid assertion: ${(error as Error).message}`);
  }
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
