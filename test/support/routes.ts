import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_POLICY } from '../../src/common/auth/authenticated.decorator.js';
import type { AccessPolicy } from '../../src/common/auth/authenticated.decorator.js';
import { HEALTH_PATH } from '../../src/common/health/health.listener.js';
import { LoginUiRouter } from '../../src/oidc/interactions/login-ui.router.js';
import { OIDC_ROUTES } from '../../src/oidc/provider/oidc.routes.js';
import type { TestService } from './service.js';

export interface DeclaredRoute {
  method: string;
  /** Express path with `:params`, e.g. `/management/v1/orgs/:orgId/projects`. */
  path: string;
  policy: AccessPolicy | undefined;
}

/** Every route of every controller with its access policy, read the way the guard reads it. */
export function declaredRoutes(svc: TestService): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const module of svc.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name as keyof object] as unknown;
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler);
        if (path === undefined) continue;
        routes.push({
          method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod],
          path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`,
          policy: Reflect.getMetadata(ACCESS_POLICY, handler) ?? Reflect.getMetadata(ACCESS_POLICY, controller),
        });
      }
    }
  }
  return routes.sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}

/** A route answered outside Nest's controllers, whose access the answering code itself decides. */
export interface OidcRoute {
  method: string;
  path: string;
  policy: string;
}

const CLIENT_AUTH = 'oidc-provider client authentication';

/**
 * The oidc-provider endpoints (the paths the provider is configured with, plus the discovery document
 * and the sub-paths it adds itself) with the check oidc-provider applies: client authentication
 * (RFC 6749 §2.3, RFC 7662 §2.1, RFC 7009 §2, RFC 9126 §2), a bearer access token (OpenID Connect Core
 * §5.3), or none for the end-user's browser and the published metadata.
 */
function providerRoutes(): OidcRoute[] {
  const {
    authorization,
    pushed_authorization_request,
    token,
    introspection,
    revocation,
    jwks,
    userinfo,
    end_session,
    device_authorization,
    code_verification,
  } = OIDC_ROUTES;
  const entries: [string, string, string][] = [
    ['GET', '/.well-known/openid-configuration', 'public'],
    ['GET', '/.well-known/oauth-authorization-server', 'public'],
    ['GET', authorization, 'public (end-user browser)'],
    ['POST', authorization, 'public (end-user browser)'],
    ['GET', `${authorization}/:uid`, 'public (interaction cookie)'],
    ['POST', pushed_authorization_request, CLIENT_AUTH],
    ['POST', token, CLIENT_AUTH],
    ['POST', introspection, CLIENT_AUTH],
    ['POST', revocation, CLIENT_AUTH],
    ['GET', jwks, 'public'],
    ['GET', userinfo, 'oidc-provider access token'],
    ['POST', userinfo, 'oidc-provider access token'],
    ['GET', end_session, 'public (end-user browser)'],
    ['POST', end_session, 'public (end-user browser)'],
    ['POST', `${end_session}/confirm`, 'public (end-user browser, CSRF value)'],
    ['GET', `${end_session}/success`, 'public'],
    // RFC 8628: the device authenticates as its client; the user's pages are the login UI's, answered by the provider.
    ['POST', device_authorization, CLIENT_AUTH],
    ['GET', code_verification, 'public (end-user browser)'],
    ['POST', code_verification, 'public (provider session, xsrf value; per-IP limit of wrong codes)'],
    ['GET', `${code_verification}/:uid`, 'public (interaction cookie)'],
  ];
  return entries.map(([method, path, policy]) => ({ method, path, policy }));
}

/** The login UI's Express routes, read from the router the service mounts. */
function loginUiRoutes(svc: TestService): OidcRoute[] {
  const router = svc.app.get(LoginUiRouter, { strict: false }).router() as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[];
  };
  return router.stack.flatMap(({ route }) =>
    route
      ? Object.keys(route.methods).map((method) => ({
          method: method.toUpperCase(),
          path: route.path,
          // Showing a form needs only the interaction cookie; posting one also the CSRF value bound to it.
          // The passkey ceremony's scripts are static files. An upstream IdP's callback carries no cookie:
          // its `state` (SAML's RelayState at the ACS) finds the round trip, which goes on only under the
          // interaction's cookie (docs/federation.md, "The round trip"). A SAML IdP's SP metadata is public by design; its
          // single logout acts only on a message the IdP signed (docs/federation.md, "Single logout"). The pages of mailed
          // links are authorized by the one-time code they carry (docs/mail.md), in any browser.
          policy: route.path.includes('/assets/')
            ? 'public (static file)'
            : route.path.startsWith('/ui/account') || route.path === '/ui/apps'
              ? accountPagePolicy(route.path, method)
              : ['/ui/login/invitation', '/ui/login/password-reset', '/ui/login/email-verification'].includes(route.path)
                ? 'public (one-time code from the mail, single use)'
                : route.path.endsWith('/callback') || route.path.endsWith('/acs') || route.path.endsWith('/test-result')
                  ? 'public (upstream state, single use)'
                  : route.path.endsWith('/metadata')
                    ? 'public (SP metadata: keys and endpoints)'
                    : route.path.endsWith('/slo')
                      ? "public (the IdP's signed logout message; a response only to a sign-out awaiting it)"
                      : method === 'get'
                        ? 'public (interaction cookie)'
                        : 'public (interaction cookie, CSRF value)',
        }))
      : [],
  );
}

/**
 * The account page (docs/account.md) acts only on the user of the browser's login session: its pages and forms need that
 * session (without one they start a sign-in, or refuse a form), its forms the CSRF value bound to it, and changes to
 * how the user signs in a sign-in of the last 15 minutes. The provider's redirect back carries nothing to act on.
 */
function accountPagePolicy(path: string, method: string): string {
  if (path === '/ui/account/sign-in' || path === '/ui/account/signed-in') return 'public (starts or ends the account sign-in; acts on no one)';
  if (path === '/ui/account/identities/linked') return "login session (the session's own user), the round trip this session began (single use)";
  if (method === 'get') return "login session (the session's own user)";
  const fresh = ['/email', '/factors/', '/identities/'].some((part) => path.includes(part)) && !path.endsWith('/email/verify');
  return `login session (the session's own user), CSRF value${fresh ? ', sign-in within 15 minutes' : ''}`;
}

/** Routes answered before Express by the service itself (src/common/health/health.listener.ts), described in the OpenAPI document. */
export function beforeExpressRoutes(): DeclaredRoute[] {
  return [{ method: 'GET', path: HEALTH_PATH, policy: { public: true } }];
}

/** Every route outside Nest's controllers: the health probe, oidc-provider's endpoints and the login UI. */
export function oidcRoutes(svc: TestService): OidcRoute[] {
  const health = beforeExpressRoutes().map(({ method, path }) => ({ method, path, policy: 'public' }));
  return [...health, ...providerRoutes(), ...loginUiRoutes(svc)].sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}

/** Fills `:params` from the given values; throws on a parameter the caller has no value for. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for :${name} in ${path}: add one to the test`);
    return encodeURIComponent(values[name]);
  });
}
