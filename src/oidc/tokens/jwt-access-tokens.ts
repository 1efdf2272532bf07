import { createLocalJWKSet, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { Adapter, OidcContext } from 'oidc-provider';
import { apiResourceOf } from './audience.js';

const JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * oidc-provider issues JWT access tokens without storing them. docs/product-rules.md, "OpenID Connect and OAuth" wants them introspectable
 * and revocable like opaque ones, so the JWT customizer stores the token's payload under its `jti`
 * (hashed, as every id), and lookups by the JWT itself verify its signature and use its `jti`.
 */
export function jwtPersistingCustomizer(
  adapterFor: (model: string) => Adapter,
  audienceOf: (clientId: string, scope?: string, userId?: string) => Promise<string[]>,
  rolesOf: (userId: string, clientId: string, scope: string, resource?: string) => Promise<string[]>,
) {
  return async (_ctx: OidcContext, token: Record<string, any>, jwt: { header: object; payload: Record<string, unknown> }) => {
    // RFC 9068 §2.2: `aud` lists the token's audience, not only the resource indicator; an exchanged
    // token keeps exactly the audience it was issued for (RFC 8693 §2.1, token-exchange.grant.ts), and a token
    // for an API application's resource has that resource alone (audience.ts, apiResourceOf).
    if (token.gty !== 'token_exchange' && apiResourceOf(jwt.payload.aud) === undefined)
      jwt.payload.aud = [...new Set([...[jwt.payload.aud ?? []].flat(), ...(await audienceOf(token.clientId, token.scope, token.accountId))])];
    // The user's roles when the scope asks (docs/application-access.md), read at issue like the other claims of a
    // JWT; introspection and userinfo read them again on use. A token for a resource has that resource's roles.
    const scopes = String(token.scope ?? '').split(' ');
    if (token.accountId && scopes.includes('roles'))
      jwt.payload.roles = await rolesOf(token.accountId, token.clientId, token.scope, apiResourceOf(jwt.payload.aud));
    const fields: string[] = (token.constructor as unknown as { IN_PAYLOAD: string[] }).IN_PAYLOAD;
    const payload: Record<string, unknown> = { iat: token.iat, exp: token.exp ?? jwt.payload.exp };
    for (const field of fields) if (token[field] !== undefined && field !== 'jti') payload[field] = token[field];
    const ttl = Math.max(1, Number(payload.exp) - Math.floor(Date.now() / 1000));
    await adapterFor(token.kind).upsert(token.jti, payload, ttl);
  };
}

/** Resolves a presented JWT access token to its `jti` when it is signed by one of our published keys. */
export class JwtTokenIds {
  private keys: JWTVerifyGetKey;
  private lastReload = 0;

  /**
   * `reload` fetches the published keys again: a JWT signed by a key this process has not seen yet
   * (another process rotated moments ago) triggers it, at most once a second, instead of failing
   * until the next poll.
   */
  constructor(
    publicJwks: object[],
    private readonly issuer: string,
    private readonly reload?: () => Promise<object[]>,
  ) {
    this.keys = createLocalJWKSet({ keys: publicJwks as never[] });
  }

  private async verified(value: string, options: Parameters<typeof jwtVerify>[2]) {
    try {
      return await jwtVerify(value, this.keys, options);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || !this.reload || Date.now() - this.lastReload < 1000) throw error;
      this.lastReload = Date.now();
      this.keys = createLocalJWKSet({ keys: (await this.reload()) as never[] });
      return jwtVerify(value, this.keys, options);
    }
  }

  static looksLikeJwt(value: string): boolean {
    return JWS.test(value);
  }

  /** The payload of a JWT this instance signed (an ID token, say), or undefined. */
  async verify(value: string): Promise<JWTPayload | undefined> {
    try {
      return (await this.verified(value, { issuer: this.issuer })).payload;
    } catch {
      return undefined;
    }
  }

  async jtiOf(value: string): Promise<string | undefined> {
    try {
      // Expiry is checked on the stored payload; here only the signature and issuer matter.
      const { payload } = await this.verified(value, { issuer: this.issuer, typ: 'at+jwt', clockTolerance: Number.MAX_SAFE_INTEGER });
      return typeof payload.jti === 'string' ? payload.jti : undefined;
    } catch {
      return undefined;
    }
  }
}
