import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { tokensIssued } from '../../common/metrics/metrics.js';

/**
 * `portcullis_tokens_issued_total{grant_type}`: oidc-provider emits `grant.success` after every token
 * endpoint grant that answered (its own and the ones registered here), and `authorization.success`
 * after an authorization response, which carries an access token for `id_token token`. Only grant
 * types the provider supports get this far, so the label has a fixed set of values.
 */
export function countIssuedTokens(provider: Provider): void {
  provider.on('grant.success', (ctx: OidcContext) => tokensIssued.inc({ grant_type: String(ctx.oidc.params?.grant_type) }));
  provider.on('authorization.success', (ctx: OidcContext, out: { access_token?: string }) => {
    if (out?.access_token) tokensIssued.inc({ grant_type: 'implicit' });
  });
}
