import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { DPOP_TOKEN_REFUSALS } from '../../common/auth/dpop-proof.js';

/** An error as oidc-provider's error handler has it: the public code and description, and the detail it keeps to itself. */
interface ProviderError {
  error?: string;
  error_description?: string;
  error_detail?: string;
}

/** The details oidc-provider gives these refusals (helpers/sender_constraints.js, shared/access_token.js). */
const PROOF_NOT_PROVIDED = 'DPoP proof JWT not provided';
const KEY_MISMATCH = 'failed jkt verification';

/**
 * oidc-provider answers two DPoP refusals in words that do not say what is wrong (docs/oauth-profiles.md, "DPoP"):
 *
 * - a token request without a proof from a client registered with `dpop_bound_access_tokens` is `invalid_grant`,
 *   "grant request is invalid". RFC 9449 §5.2: such a request MUST be rejected, and §5 answers a token request whose
 *   proof is not valid with `invalid_dpop_proof`; a missing proof is no valid one, and that is the code DPoP clients
 *   act on (openid-client retries with a proof only on the DPoP errors). It becomes `invalid_dpop_proof`,
 *   "DPoP proof JWT not provided".
 * - a bound token at userinfo as a Bearer token, or with a proof of another key, is `invalid_token`, "invalid token
 *   provided": it gets the admin API's words for the same mistakes (RFC 9449 §7.2), in the body and the challenge.
 *
 * The error handler emits `grant.error` and `userinfo.error` after it wrote the body and before the response leaves,
 * so the listeners change only the words of these two refusals.
 */
export function explainDpopRefusals(provider: Provider): void {
  provider.on('grant.error', (ctx: OidcContext, error: ProviderError) => {
    if (error.error !== 'invalid_grant' || error.error_detail !== PROOF_NOT_PROVIDED) return;
    ctx.body = { error: 'invalid_dpop_proof', error_description: PROOF_NOT_PROVIDED };
  });
  provider.on('userinfo.error', (ctx: OidcContext, error: ProviderError) => {
    if (error.error !== 'invalid_token' || error.error_detail !== KEY_MISMATCH) return;
    const description = ctx.get('DPoP') ? DPOP_TOKEN_REFUSALS.otherKey : DPOP_TOKEN_REFUSALS.asBearer;
    ctx.body = { error: 'invalid_token', error_description: description };
    const challenge = ctx.response.get('WWW-Authenticate');
    // The challenge's quoted-string escaped as oidc-provider escapes it (helpers/append_www_authenticate.js).
    const quoted = description.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    if (challenge)
      ctx.set(
        'WWW-Authenticate',
        challenge.replace(`error_description="${error.error_description}"`, () => `error_description="${quoted}"`),
      );
  });
}
