/** The scope adding the Portcullis API to a token's audience (first-party applications and machine users only). */
export const API_AUDIENCE_SCOPE = 'urn:portcullis:iam:api:aud';

/**
 * The scopes this provider knows (OIDC Core §5.4 plus `offline_access`, `groups` for the names of the
 * user's groups, `roles` for the user's roles in a project, and the Portcullis API audience scope). Each application is registered with the ones it
 * may ask for (its `scope` metadata, see `allowedScopes`): oidc-provider refuses any other with
 * `invalid_scope`, in every flow.
 */
export const SCOPES = ['openid', 'profile', 'email', 'phone', 'address', 'offline_access', 'groups', 'roles', API_AUDIENCE_SCOPE];

/** An application may ask for the API audience scope only when it is first-party (apiAccess). */
export function allowedScopes(apiAccess: boolean): string {
  return SCOPES.filter((scope) => apiAccess || scope !== API_AUDIENCE_SCOPE).join(' ');
}
