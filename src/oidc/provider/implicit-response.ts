import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';

interface ImplicitOut {
  id_token?: string;
  access_token?: string;
  code?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
}

/**
 * Spec B, "Successful implicit response": both implicit response types carry `expires_in`, `token_type`
 * (`Bearer`) and `scope`. oidc-provider adds them only with an access token (`id_token token`); for
 * `response_type=id_token` they are added here — the ID token's lifetime and the granted OpenID scope.
 * `authorization.success` is emitted with the response parameters before the response mode writes them.
 */
export function completeImplicitResponses(provider: Provider, idTokenLifetimeS: number): void {
  provider.on('authorization.success', (ctx: OidcContext, out: ImplicitOut) => {
    if (!out?.id_token || out.access_token !== undefined || out.code !== undefined) return;
    const grant = ctx.oidc.grant as { getOIDCScopeFiltered(scopes: Set<string>): string } | undefined;
    out.token_type = 'Bearer';
    out.expires_in = idTokenLifetimeS;
    out.scope = grant?.getOIDCScopeFiltered(ctx.oidc.requestParamOIDCScopes as Set<string>) ?? 'openid';
  });
}
