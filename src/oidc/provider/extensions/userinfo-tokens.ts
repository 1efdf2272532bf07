import Provider from 'oidc-provider';
import type { OidcContext, ProviderGrant, ProviderModel } from 'oidc-provider';
import { SET_ASIDE_RESOURCE } from '../../tokens/audience.js';

type FoundToken = ProviderModel & {
  [SET_ASIDE_RESOURCE]?: unknown;
  aud?: string | string[];
  jkt?: string;
};

/**
 * Userinfo honours every access token that carries `openid`, whatever its format and whoever holds it
 * (docs/product-rules.md, "OpenID Connect and OAuth"; for machine users the JWT profile response even includes their id_token). oidc-provider's
 * userinfo refuses two kinds of them:
 * - tokens with an audience (JWT access tokens, and every machine-user token, issued for the API):
 *   the audience is dropped from the in-memory entity for this request (nothing is saved);
 * - client-credentials tokens, which its userinfo does not look up at all: one is presented as the
 *   machine user's access token, with an unsaved grant of its scope.
 * The tokens are still found through the adapter (expiry, revocation and logout apply) and the account
 * is read on use by findAccount, so a deactivated, locked or removed user's token is refused.
 */
export function honourEveryOpenidTokenAtUserinfo(provider: Provider): void {
  const AccessToken = provider.AccessToken;
  const find = AccessToken.find;
  AccessToken.find = async function findForUserinfo(this: unknown, value: unknown, ...rest: unknown[]) {
    const token: FoundToken | undefined = await find.call(this, value, ...rest);
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'userinfo' || typeof value !== 'string') return token;
    if (token) {
      if (token.accountId && hasOpenid(token)) {
        // Still the resource's token: its claims (`roles`) are of that resource's project (account.finder.ts).
        token[SET_ASIDE_RESOURCE] = token.aud;
        token.aud = undefined;
      }
      return token;
    }
    return machineTokenAsAccessToken(provider, ctx, value);
  };
  const findGrant = provider.Grant.find;
  provider.Grant.find = async function findGrantForUserinfo(this: unknown, id: unknown, ...rest: unknown[]) {
    const transient = transientGrants.get(Provider.ctx ?? {});
    if (transient && transient.jti === id) return transient;
    return findGrant.call(this, id, ...rest);
  };
}

/** The grant of a client-credentials token presented at userinfo, for the one request that presents it. */
const transientGrants = new WeakMap<object, ProviderGrant>();

async function machineTokenAsAccessToken(provider: Provider, ctx: OidcContext, value: string): Promise<ProviderModel | undefined> {
  const token: FoundToken | undefined = await provider.ClientCredentials.find(value);
  // Without openid it is still presented, so that userinfo answers insufficient_scope as for any token.
  if (!token?.clientId) return undefined;
  const grant = new provider.Grant({ clientId: token.clientId, accountId: token.clientId });
  grant.addOIDCScope(token.scope ?? '');
  transientGrants.set(ctx, grant);
  // Its DPoP binding goes with it (RFC 9449 §7.2): userinfo then refuses it without a proof of the key.
  return new provider.AccessToken({
    accountId: token.clientId,
    clientId: token.clientId,
    grantId: grant.jti,
    scope: token.scope,
    exp: token.exp,
    gty: 'client_credentials',
    jkt: token.jkt,
  });
}

function hasOpenid(token: FoundToken): boolean {
  return typeof token.scope === 'string' && token.scope.split(' ').includes('openid');
}
