import { SSF_MANAGE_SCOPE } from '../../common/auth/client-tokens.js';

/** The scope adding the Portcullis API to a token's audience (first-party applications and machine users only). */
export const API_AUDIENCE_SCOPE = 'urn:portcullis:iam:api:aud';

/**
 * The scopes this provider knows (OIDC Core §5.4 plus `offline_access`, `groups` for the names of the
 * user's groups, `roles` for the user's roles in a project, and the Portcullis API audience scope). Each application is registered with the ones it
 * may ask for (its `scope` metadata, see `allowedScopes`): oidc-provider refuses any other with
 * `invalid_scope`, in every flow.
 */
export const SCOPES = ['openid', 'profile', 'email', 'phone', 'address', 'offline_access', 'groups', 'roles', API_AUDIENCE_SCOPE, SSF_MANAGE_SCOPE];

/**
 * An application may ask for the API audience scope only when it is first-party (apiAccess), and for `ssf.manage`
 * only when its organization made it a Shared Signals receiver (docs/signals.md, "Receivers").
 */
export function allowedScopes(apiAccess: boolean, ssfReceiver = false): string {
  return SCOPES.filter((scope) => (apiAccess || scope !== API_AUDIENCE_SCOPE) && (ssfReceiver || scope !== SSF_MANAGE_SCOPE)).join(' ');
}
