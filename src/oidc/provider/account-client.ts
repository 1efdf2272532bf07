import { ACCOUNT_SIGNED_IN_PATH } from '../../login/ui-paths.js';

/** The account page's own sign-in (docs/account.md, "Signing in"): a static client of the provider, never stored, never listed. */
export const ACCOUNT_CLIENT_ID = 'portcullis-account';

/**
 * The account page lives in the login UI's session and reads it directly; it needs a client only to start a
 * sign-in when the browser has no session. Public (PKCE, no secret), code flow, its one redirect URI on this
 * instance, and first-party like the console: it serves users of every organization (organization-boundary.ts).
 * The code it receives is never redeemed: the token endpoint refuses this client (extensions/request-rules.ts).
 */
export function accountClient(publicUrl: string) {
  return {
    client_id: ACCOUNT_CLIENT_ID,
    client_name: 'Account',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [`${publicUrl}${ACCOUNT_SIGNED_IN_PATH}`],
    portcullis_kind: 'account',
    portcullis_api_access: true,
  };
}
