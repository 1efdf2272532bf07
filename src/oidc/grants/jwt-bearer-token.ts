import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';

export interface JwtBearerToken {
  accountId: string;
  /** The resource server the token is for (RFC 8707): its audience. */
  resource: string;
  scope: string;
  format: 'jwt' | 'opaque';
  ttl: number;
  alg: string;
}

/**
 * Issues the JWT bearer grant's access token (RFC 7523 §2.1) on a new grant of `scope` to the account, for one
 * resource server: a machine user's assertion gets the API audience, an ID-JAG its resource (docs/agents.md).
 */
export async function issueJwtBearerToken(provider: Provider, ctx: OidcContext, token: JwtBearerToken): Promise<{ accessToken: string; expiresIn: number }> {
  const { client } = ctx.oidc;
  const { accountId, resource, scope } = token;
  const grant = new provider.Grant({ clientId: client!.clientId, accountId });
  grant.addOIDCScope(scope);
  grant.addResourceScope(resource, scope);
  const grantId = await grant.save();
  ctx.oidc.entity('Grant', grant);
  const at = new provider.AccessToken({ accountId, client, grantId, gty: 'jwt_bearer', scope: scope || undefined });
  at.resourceServer = new provider.ResourceServer(resource, {
    audience: resource,
    scope,
    accessTokenTTL: token.ttl,
    accessTokenFormat: token.format,
    jwt: { sign: { alg: token.alg } },
  });
  ctx.oidc.entity('AccessToken', at);
  return { accessToken: await at.save(), expiresIn: at.expiration };
}
