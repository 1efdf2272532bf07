import { clientKindOf } from '../../login/client-kind.js';
import type { KindedClient } from '../../login/client-kind.js';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { json } from '../../common/database/column-values.js';
import { ID_TOKEN_ALGS } from '../../federation/upstream-oidc.js';
import { RESOURCE_COMPANION_SCOPES } from '../../users/api-resource.rules.js';
import type { ApplicationAccessMode, ResourceScope } from '../../users/entities/application.entity.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';
import type { IdJagRedeeming } from '../provider-port.js';
import { ID_JAG_LIFETIME_S, ID_JAG_TYP } from './id-jag.services.js';
import type { IdJagServices } from './id-jag.services.js';

/** The skew allowed on an ID-JAG's `exp` and `iat` (docs/agents.md, "Enterprise-managed authorization"). */
const SKEW_S = 30;

export interface IdJagRedeemDeps {
  dataSource: DataSource;
  idJag: IdJagServices;
}

/** Whether a JWT bearer assertion presents itself as an ID-JAG, or is sent by a client that is no machine user. */
export function isIdJagRequest(client: KindedClient, assertion: string): boolean {
  if (clientKindOf(client) !== 'machine') return true;
  try {
    return decodeProtectedHeader(assertion).typ?.toLowerCase() === ID_JAG_TYP;
  } catch {
    return false;
  }
}

/**
 * The JWT bearer grant (RFC 7523 §2.1) with an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §5): issued by
 * an upstream OIDC IdP of the client's organization that accepts ID-JAGs, signed by its keys, `typ`
 * oauth-id-jag+jwt, for this issuer, for one of the organization's resources, for this very client, at most five
 * minutes old and lived, each `jti` once across processes. The person is found by the IdP's linking rules and must
 * be allowed in the resource's application; the access token's one audience is the resource, without a refresh token.
 */
export function idJagRedeemer(grants: IdJagRedeeming, deps: IdJagRedeemDeps) {
  const invalidGrant = (description: string) => grants.invalidGrant(description);
  return async (ctx: OidcContext): Promise<void> => {
    const { client, params } = ctx.oidc;
    const assertion = String(params.assertion ?? '');
    const orgId = String(client.portcullis_org_id ?? '');
    let typ: string | undefined;
    let kid: string | undefined;
    let unverified: JWTPayload;
    try {
      ({ typ, kid } = decodeProtectedHeader(assertion));
      unverified = decodeJwt(assertion);
    } catch {
      throw invalidGrant('the assertion is not a JWT');
    }
    if (typ?.toLowerCase() !== ID_JAG_TYP) throw invalidGrant(`the assertion is not an ID-JAG: its header "typ" must be ${ID_JAG_TYP}, not ${typ ?? 'absent'}`);
    const idp = typeof unverified.iss === 'string' ? await deps.idJag.issuers.trusted(orgId, unverified.iss) : undefined;
    if (!idp) throw invalidGrant('the issuer of the ID-JAG is no identity provider of this organization that accepts ID-JAGs');
    let keys: JWTVerifyGetKey;
    try {
      keys = await deps.idJag.issuers.verificationKeys(idp, kid);
    } catch {
      throw invalidGrant("the keys of the ID-JAG's issuer could not be read");
    }
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(assertion, keys, {
        issuer: unverified.iss,
        audience: grants.issuer,
        typ: ID_JAG_TYP,
        algorithms: ID_TOKEN_ALGS,
        requiredClaims: ['iat', 'exp', 'jti', 'sub'],
        maxTokenAge: ID_JAG_LIFETIME_S,
        clockTolerance: SKEW_S,
      }));
    } catch (error) {
      throw invalidGrant(verificationFailure(error));
    }
    if (claims.exp! - claims.iat! > ID_JAG_LIFETIME_S) throw invalidGrant(`the ID-JAG lives longer than ${ID_JAG_LIFETIME_S} seconds ("exp" - "iat")`);
    if (claims.client_id !== client.clientId) throw invalidGrant('the ID-JAG was issued for another client: "client_id" is not the authenticated client');
    const resource = typeof claims.resource === 'string' ? claims.resource : undefined;
    const api = resource === undefined ? undefined : await apiResourceByUri(deps.dataSource, resource);
    if (!resource || !api || api.org_id !== orgId) throw invalidGrant('the "resource" of the ID-JAG is no resource of this organization');
    if (typeof claims.jti !== 'string' || claims.jti === '') throw invalidGrant('the ID-JAG has no "jti"');
    const usableUntilS = Math.min(claims.exp!, claims.iat! + ID_JAG_LIFETIME_S) + SKEW_S;
    if (!(await grants.firstUse(`id-jag:${idp.id}`, claims.jti, usableUntilS * 1000))) {
      throw invalidGrant('the ID-JAG was already used: each "jti" is accepted once');
    }
    const found = await deps.idJag.issuers.userOf(idp, claims as Record<string, unknown>);
    if (!found.ok) throw invalidGrant(`the person of the ID-JAG has no account here (${found.reason})`);
    const account = await grants.account(found.userId);
    if (!account || account.orgId !== orgId) throw invalidGrant('the person of the ID-JAG is not an active user of this organization');
    if (!(await deps.idJag.access.mayEnter({ projectId: api.project_id, access: api.access as ApplicationAccessMode }, found.userId))) {
      throw invalidGrant("the person of the ID-JAG may not use this resource (its application's access rule)");
    }
    ctx.oidc.entity('Account', account);
    const scope = grantedScope(claims.scope, json<ResourceScope[]>(api.resource_scopes, []));
    const { accessToken, expiresIn } = await grants.issueResourceToken(ctx, {
      accountId: found.userId,
      resource,
      scope,
      format: api.access_token_type === 'jwt' ? 'jwt' : 'opaque',
    });
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope };
  };
}

/** The ID-JAG's scope, less what the resource does not define (its own scopes and the companions but `offline_access`: no refresh token). */
function grantedScope(asserted: unknown, own: ResourceScope[]): string {
  const allowed = new Set([...RESOURCE_COMPANION_SCOPES.filter((s) => s !== 'offline_access'), ...own.map((s) => s.name)]);
  const scopes = typeof asserted === 'string' ? asserted.split(' ').filter(Boolean) : [];
  return [...new Set(scopes.filter((s) => allowed.has(s)))].join(' ');
}

/** Which check the ID-JAG failed, in words. */
function verificationFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return `the ID-JAG has expired: ${error.message}`;
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'bad signature: the ID-JAG is not signed by a key of its issuer';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `wrong audience: "aud" must be this issuer (${error.message})`;
    if (error.claim === 'iat') return `the ID-JAG is too old or issued in the future: ${error.message}`;
    return `invalid ID-JAG: ${error.message}`;
  }
  return `invalid ID-JAG: ${(error as Error).message}`;
}
