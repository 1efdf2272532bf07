import Provider from 'oidc-provider';
import { JwtTokenIds } from './jwt-access-tokens.js';

interface FoundAccessToken {
  accountId?: string;
  aud?: string | string[];
}

/**
 * DESIGN §5: userinfo honours JWT access tokens like opaque ones. oidc-provider issues JWT access
 * tokens only for a resource server, and its userinfo refuses any token with an audience. A user's JWT
 * access token is found through the adapter like every token (signature checked against our published
 * keys, then its stored record by `jti`: expiry, revocation and logout apply; the account, and so the
 * user's state, is read on use by findAccount), so at userinfo only that refusal is lifted: the
 * audience is dropped from the in-memory entity for this request (nothing is saved). Opaque tokens are
 * untouched, including opaque ones issued for a resource server, which userinfo still refuses.
 */
export function honourJwtAccessTokensAtUserinfo(provider: Provider): void {
  const AccessToken = provider.AccessToken;
  const find = AccessToken.find;
  AccessToken.find = async function findForUserinfo(this: unknown, value: unknown, ...rest: unknown[]) {
    const token: FoundAccessToken | undefined = await find.call(this, value, ...rest);
    if (token?.accountId && typeof value === 'string' && JwtTokenIds.looksLikeJwt(value) && atUserinfo()) token.aud = undefined;
    return token;
  };
}

function atUserinfo(): boolean {
  return Provider.ctx?.oidc?.route === 'userinfo';
}
