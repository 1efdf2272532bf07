import { errors } from 'oidc-provider';
import { ACR_MFA } from '../../login/authentication-methods.js';
import { accountReadWithToken } from '../adapter/request-lookups.js';
import { DEFAULT_LOGIN_POLICY } from '../../users/login-policy.service.js';
import type { OidcAccount } from './account.finder.js';

/** The part of a refresh token this check reads: oidc-provider copies the session's `acr` into it. */
interface TokenSeen {
  kind?: string;
  acr?: string;
}

/**
 * `mfa: "required"` holds at the refresh-token grant too (docs/product-rules.md, "Multi-factor sign-in"): a grant whose session
 * lacked the second factor gets `invalid_grant` once its organization requires one, instead of minting
 * password-only tokens for the refresh token's whole lifetime. The user signs in again, with the factor.
 */
export async function refuseRefreshWithoutSecondFactor(
  account: OidcAccount,
  token: unknown,
  loginPolicy: (orgId: string) => Promise<{ mfa: string }>,
): Promise<void> {
  const seen = token as TokenSeen | undefined;
  if (seen?.kind !== 'RefreshToken' || seen.acr === ACR_MFA) return;
  if ((loginMfaReadWithToken(account) ?? (await loginPolicy(account.orgId)).mfa) !== 'required') return;
  const refused = new errors.InvalidGrant();
  // oidc-provider's own description is only "grant request is invalid"; the client's user needs the reason.
  refused.error_description = 'the organization requires a second factor: sign in again';
  throw refused;
}

/**
 * The organization's `mfa` policy as read with the refresh token and its account in this request's
 * statement (oidc-payload.adapter.ts), on use like `loginPolicy`; undefined when it was not read there.
 * No stored policy reads as null there: the default applies, as in LoginPolicyService.get.
 */
function loginMfaReadWithToken(account: OidcAccount): string | undefined {
  const row = accountReadWithToken(account.accountId);
  if (!row || !('login_mfa' in row) || row.org_id !== account.orgId) return undefined;
  return typeof row.login_mfa === 'string' ? row.login_mfa : DEFAULT_LOGIN_POLICY.mfa;
}
