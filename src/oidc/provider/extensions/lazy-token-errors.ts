import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import userinfo from 'oidc-provider/lib/actions/userinfo.js';
import certificateThumbprint from 'oidc-provider/lib/helpers/certificate_thumbprint.js';
import { account as validateAccount } from 'oidc-provider/lib/helpers/configuration_result.js';
import dpopValidate, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import instance from 'oidc-provider/lib/helpers/weak_cache.js';
import { loadAccessTokenAccount, loadAccessTokenClient } from 'oidc-provider/lib/shared/access_token.js';

type Middleware = (ctx: OidcContext, next: () => Promise<void>) => Promise<void>;

/**
 * oidc-provider's userinfo steps (`shared/access_token.js`) check what they found with
 * `ctx.assert(found, new InvalidToken(...))`: the error, with its stack trace, is built before the check, so a
 * successful userinfo request builds three errors it never throws. These steps do the same checks in the same order
 * and build an error only to throw it.
 *
 * The steps are swapped in the library's userinfo action list (`actions/userinfo.js`), which each provider spreads
 * into its router when it is built: this runs once per process, before the first provider. The contract test
 * (test/oidc/extensions/lazy-token-errors.test.ts) pins the source of what is replaced, so an upgrade that changes
 * it fails there instead of silently running old checks.
 */
export function buildTokenErrorsOnlyWhenThrown(): void {
  const steps = userinfo as Middleware[];
  const at = (step: Middleware | string) => steps.findIndex((s) => s === step || s.name === step);
  const validate = at('validateAccessToken');
  const client = at(loadAccessTokenClient);
  const account = at(loadAccessTokenAccount);
  if (validate === -1 && client === -1 && account === -1) return; // already swapped
  if (validate === -1 || client === -1 || account === -1) throw new Error('oidc-provider userinfo steps moved: see extensions/lazy-token-errors.ts');
  steps[validate] = validateUserinfoAccessToken;
  steps[client] = loadClientOfAccessToken;
  steps[account] = loadAccountOfAccessToken;
}

/** `getValidateAccessToken({ afterFind })` of `shared/access_token.js` with userinfo's `afterFind`. */
async function validateUserinfoAccessToken(ctx: OidcContext, next: () => Promise<void>): Promise<void> {
  const value = ctx.oidc.getAccessToken({ acceptDPoP: true });
  const dPoP = await dpopValidate(ctx.oidc.provider, ctx, value);
  const accessToken = await ctx.oidc.provider.AccessToken.find(value);
  if (!accessToken) throw new errors.InvalidToken('access token not found');
  ctx.oidc.entity('AccessToken', accessToken);

  if (!accessToken.scopes.size || !accessToken.scopes.has('openid')) {
    throw new errors.InsufficientScope('access token missing openid scope', 'openid');
  }

  if (accessToken['x5t#S256']) {
    const { getCertificate } = instance(ctx.oidc.provider).features.mTLS;
    const cert = getCertificate(ctx);
    if (!cert || accessToken['x5t#S256'] !== certificateThumbprint(cert)) {
      throw new errors.InvalidToken('failed x5t#S256 verification');
    }
  }

  await checkDpopReplay(ctx.oidc.provider, ctx, dPoP, accessToken.clientId, errors.InvalidToken);

  if (dPoP && !accessToken.jkt) {
    throw new errors.InvalidToken('access token is not sender-constrained but proof of possession was provided');
  }
  if (accessToken.jkt && (!dPoP || accessToken.jkt !== dPoP.thumbprint)) {
    throw new errors.InvalidToken('failed jkt verification');
  }
  await next();
}

async function loadClientOfAccessToken(ctx: OidcContext, next: () => Promise<void>): Promise<void> {
  const client = await ctx.oidc.provider.Client.find(ctx.oidc.accessToken.clientId);
  if (!client) throw new errors.InvalidToken('associated client not found');
  ctx.oidc.entity('Client', client);
  await next();
}

async function loadAccountOfAccessToken(ctx: OidcContext, next: () => Promise<void>): Promise<void> {
  const account = validateAccount(await instance(ctx.oidc.provider).configuration.findAccount(ctx, ctx.oidc.accessToken.accountId, ctx.oidc.accessToken));
  if (!account) throw new errors.InvalidToken('associated account not found');
  ctx.oidc.entity('Account', account);
  await next();
}
