import { ACCOUNT_UI_PREFIX, APPS_UI_PATH, LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import { AUTHORIZATION_SERVER_METADATA_PATH } from './authorization-server-metadata.js';

/** Endpoint paths (docs/product-rules.md, "OpenID Connect and OAuth"). */
export const OIDC_ROUTES = {
  authorization: '/oauth/v2/authorize',
  /** RFC 9126 pushed authorization requests. */
  pushed_authorization_request: '/oauth/v2/par',
  token: '/oauth/v2/token',
  introspection: '/oauth/v2/introspect',
  revocation: '/oauth/v2/revoke',
  jwks: '/oauth/v2/keys',
  userinfo: '/oidc/v1/userinfo',
  end_session: '/oidc/v1/end_session',
  /** RFC 8628 §3.1 device authorization endpoint. */
  device_authorization: '/oauth/v2/device_authorization',
  /** RFC 8628 §3.3 verification URI: the user code page, in the login UI's paths but answered by oidc-provider. */
  code_verification: '/ui/login/device',
  /** RFC 7591 §3 client registration endpoint; RFC 7592's client configuration endpoint is `<it>/<client_id>`. */
  registration: '/oauth/v2/register',
};

/** Paths that oidc-provider answers (its own sub-paths such as `/oauth/v2/authorize/:uid` included). */
export function isProviderPath(path: string): boolean {
  return (
    path === '/.well-known/openid-configuration' ||
    path === AUTHORIZATION_SERVER_METADATA_PATH ||
    path.startsWith('/oauth/v2/') ||
    path.startsWith('/oidc/v1/') ||
    isDevicePath(path)
  );
}

/** The device flow's user pages (RFC 8628 §3.3): the verification URI and its resume path after the sign-in. */
function isDevicePath(path: string): boolean {
  return path === OIDC_ROUTES.code_verification || path.startsWith(`${OIDC_ROUTES.code_verification}/`);
}

/** The login UI's paths, the account page's and the person's applications' included. */
export function isLoginUiPath(path: string): boolean {
  return (
    path === LOGIN_UI_PREFIX ||
    path.startsWith(`${LOGIN_UI_PREFIX}/`) ||
    path === ACCOUNT_UI_PREFIX ||
    path.startsWith(`${ACCOUNT_UI_PREFIX}/`) ||
    path === APPS_UI_PATH
  );
}

const PROVIDER_TEMPLATES = new Set([
  ...Object.values(OIDC_ROUTES),
  '/.well-known/openid-configuration',
  AUTHORIZATION_SERVER_METADATA_PATH,
  `${OIDC_ROUTES.end_session}/confirm`,
  `${OIDC_ROUTES.end_session}/success`,
]);

/** The endpoint a provider path is for, as a metrics label: never the interaction id of a resume path. */
export function providerRouteTemplate(path: string): string {
  if (PROVIDER_TEMPLATES.has(path)) return path;
  if (path.startsWith(`${OIDC_ROUTES.authorization}/`)) return `${OIDC_ROUTES.authorization}/:uid`;
  if (path.startsWith(`${OIDC_ROUTES.code_verification}/`)) return `${OIDC_ROUTES.code_verification}/:uid`;
  if (path.startsWith(`${OIDC_ROUTES.registration}/`)) return `${OIDC_ROUTES.registration}/:clientId`;
  return 'unmatched';
}
