import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": when an access token is issued, the id_token omits the profile, email, phone and address
 * claims unless the application sets `idTokenUserinfoAssertion`; they come from userinfo instead.
 * oidc-provider applies the omission (conformIdTokenClaims) by narrowing the ID token's scope to
 * `openid`, but only for access tokens without an audience, so not for JWT access tokens. Here the
 * rule is applied to every ID token issued beside an access token, and for applications that set the
 * option the scope is widened back to that of the code, refresh token or request the claims were
 * read for. An ID token issued alone (response type `id_token`) keeps its claims.
 */
export function applyUserinfoAssertion(provider: Provider): void {
  const proto = provider.IdToken.prototype;
  const issue = proto.issue;
  proto.issue = function (this: { ctx?: OidcContext; scope?: string }, ...args: Parameters<typeof issue>) {
    const oidc = this.ctx?.oidc;
    if (oidc?.client && issuedWithAnAccessToken(oidc)) {
      if (!oidc.client.portcullis_userinfo_assertion) this.scope = 'openid';
      else if (this.scope === 'openid') this.scope = requestedScope(oidc) ?? this.scope;
    }
    return issue.apply(this, args);
  };
}

/** Every grant at the token endpoint issues an access token; at the authorization endpoint only `… token`. */
function issuedWithAnAccessToken(oidc: OidcContext['oidc']): boolean {
  return (
    oidc.route === 'token' ||
    String(oidc.params?.response_type ?? '')
      .split(' ')
      .includes('token')
  );
}

function requestedScope(oidc: OidcContext['oidc']): string | undefined {
  const source = oidc.entities?.AuthorizationCode ?? oidc.entities?.RefreshToken;
  const scope = source?.scope ?? oidc.params?.scope;
  return typeof scope === 'string' ? scope : undefined;
}
