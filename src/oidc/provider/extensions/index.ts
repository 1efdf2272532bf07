import type Provider from 'oidc-provider';
import type { SecretHasher } from '../../../common/crypto/secret-hasher.js';
import { compareHashedClientSecrets } from './client-secret.js';
import { checkCodesAtSave } from './code-save.js';
import type { IssuedCodeCheck } from './code-save.js';
import { sendNoLogoutTokensInline } from './backchannel-logout.js';
import { allowLoopbackForDevMode } from './dev-mode-redirect-uris.js';
import { applyUserinfoAssertion } from './id-token-claims.js';
import { enforceRequestRules } from './request-rules.js';
import { includeSessionIdInIdTokens } from './session-id-claim.js';
import { buildTokenErrorsOnlyWhenThrown } from './lazy-token-errors.js';
import { honourEveryOpenidTokenAtUserinfo } from './userinfo-tokens.js';
import { nameJwtProfileClientOnParse } from './jwt-profile-client.js';

/**
 * Every patch of oidc-provider's classes, applied to a freshly built provider (each provider has its
 * own classes, so a rebuilt one after a key rotation is patched again, once). Why each remains, and
 * which supported hooks are used instead where the library has one: docs/decisions/oidc-provider-extensions.md.
 * Each has a contract test in test/oidc/extensions/ that fails when an upgrade moves what it wraps.
 *
 * The order is the order in which oidc-provider meets them on a request, and none depends on another:
 * 1. client metadata validation (`Client.Schema#invalidate`), when a client is first loaded;
 * 2. client authentication: a JWT-profile token request's client named as its body is parsed (`OIDCContext#body`),
 *    and the client's secret compared (`Client#compareClientSecret`);
 * 3. the authorization and token endpoints' checks of the client (`Client#responseTypeAllowed`, `#grantTypeAllowed`);
 * 4. the ID token issued (`Client#includeSid`, `IdToken#issue`);
 * 5. the userinfo endpoint's token lookups (`AccessToken.find`, `Grant.find`);
 * 6. end-session's logout tokens (`Client#backchannelLogout`);
 * 7. an issued code's storage (`AuthorizationCode#save`, `DeviceCode#save`): the agents' binding at their first code.
 *
 * The request rewrites before the provider (oidc-dispatch.middleware.ts, post-to-get.ts,
 * request-body-replay.ts) work on the Node request, not on the provider: OidcDispatch applies them.
 */
/**
 * The patch of oidc-provider's modules rather than of a provider's classes: its userinfo steps are spread into each
 * provider's router when the provider is built, so this runs before `new Provider` (once; later calls do nothing).
 */
export function applyLibraryExtensions(): void {
  buildTokenErrorsOnlyWhenThrown();
}

export function applyProviderExtensions(provider: Provider, hasher: SecretHasher, codeCheck: IssuedCodeCheck): void {
  allowLoopbackForDevMode(provider);
  nameJwtProfileClientOnParse(provider);
  compareHashedClientSecrets(provider, hasher);
  enforceRequestRules(provider);
  includeSessionIdInIdTokens(provider);
  applyUserinfoAssertion(provider);
  honourEveryOpenidTokenAtUserinfo(provider);
  sendNoLogoutTokensInline(provider);
  checkCodesAtSave(provider, codeCheck);
}
