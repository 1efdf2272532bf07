/** Where the login UI answers an upstream IdP (`/ui/login/idp/{idpId}/…`: callback, ACS, SP metadata; docs/federation.md). */
export const LOGIN_IDP_PREFIX = '/ui/login/idp';
