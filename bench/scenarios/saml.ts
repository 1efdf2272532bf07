/**
 * The SAML IdP (docs/saml.md): SAML responses per second against OIDC code-flow sign-ins on the same
 * service (WORKERS=1), in alternating rounds, each a closed loop of CONCURRENCY browsers without JavaScript
 * (test/attack/support/login-client.ts). Two pairs:
 * - whole sign-ins: a password at the login page, then the code redeemed at the token endpoint (OIDC) or the signed
 *   response page (SAML: an unsigned AuthnRequest by HTTP-Redirect, the hidden client's code taken, a response signed
 *   twice, RSA-SHA256);
 * - in a session (single sign-on, no password): the same browsers, already signed in, ask again — what a second
 *   application costs. A request counts when its last answer arrives (the token response; the auto-post page).
 */
import { createHash, randomBytes } from 'node:crypto';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { freePort, startService } from '../lib/processes.js';
import { CONCURRENCY, loop } from './federation.js';
import { alternating } from './oidc.js';
import { csrfOf, LoginClient } from '../../test/attack/support/login-client.js';
import type { PageResponse } from '../../test/attack/support/login-client.js';
import { authnRequestXml, redirectQuery } from '../../test/saml/support/saml-messages.js';

export const SIGN_IN = { scenario: 'saml.sign-in', label: 'SAML sign-in with a password (SP-initiated, HTTP-Redirect, whole)' };
export const IN_SESSION = { scenario: 'saml.sso-response', label: 'SAML response in a session (single sign-on, no password)' };

const PASSWORD = 'Bench-Saml-9';
const RP = 'http://127.0.0.1:65530';
const ACS = 'http://127.0.0.1:65531/acs';

export async function runSaml(ctx: Context): Promise<void> {
  const { seconds } = ctx.options;
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  const service = await startService(store, 1, await freePort());
  try {
    const admin = adminToken(store.dataDir);
    const org = await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: 'saml-bench' });
    await call(service.url, admin, 'PUT', `/management/v1/orgs/${org.id}/login-policy`, { mfa: 'off', passkeys: false, allowRegistration: false });
    const project = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/projects`, { name: 'bench' });
    const oidc = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/oidc`, {
      name: 'oidc app',
      redirectUris: [`${RP}/cb`],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_basic',
      devMode: true,
    });
    const entityId = 'https://sp.bench.example/saml';
    await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/saml`, {
      name: 'saml app',
      entityId,
      acsUrls: [ACS],
      attributes: [
        { name: 'email', from: 'email' },
        { name: 'displayName', from: 'displayName' },
      ],
    });
    await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/human`, {
      userName: 'bench.person',
      profile: { firstName: 'Bench', lastName: 'Person' },
      email: { email: 'bench@example.com', isEmailVerified: true },
      password: PASSWORD,
    });
    const loginName = `bench.person@${org.primaryDomain}`;
    const ssoUrl = `${service.url}/saml/v2/${org.id}/sso`;
    const samlStart = (browser: LoginClient) =>
      browser.get(`/saml/v2/${org.id}/sso?${redirectQuery(authnRequestXml({ issuer: entityId, destination: ssoUrl, acsUrl: ACS }).xml)}`);
    const oidcStart = (browser: LoginClient) => {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const params = {
        client_id: oidc.clientId,
        redirect_uri: `${RP}/cb`,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      };
      return { verifier, first: browser.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`) };
    };
    const redeem = async (location: string, verifier: string) => {
      const code = new URL(location).searchParams.get('code');
      if (!code) throw new Error(`no code: ${location}`);
      const res = await fetch(`${service.url}/oauth/v2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${oidc.clientId}:${oidc.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${RP}/cb`, code_verifier: verifier }),
      });
      if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}`);
    };
    /** Follows the service's redirects, typing the password at the login page, until one leaves it or a page answers. */
    const walk = async (browser: LoginClient, first: PageResponse): Promise<PageResponse> => {
      let current = first;
      for (let i = 0; i < 12 && current.location && !current.location.startsWith(RP); i++) {
        const next = new URL(current.location, service.url);
        current = await browser.get(next.pathname + next.search);
        const uid = /^\/ui\/login\/([^/?]+)$/.exec(next.pathname)?.[1];
        if (uid && current.status === 200 && current.text.includes('name="password"')) {
          current = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(current.text), loginName, password: PASSWORD });
        }
      }
      return current;
    };
    const samlAnswered = (page: PageResponse) => {
      if (page.status !== 200 || !page.text.includes('name="SAMLResponse"')) throw new Error(`no SAML response: ${page.status}`);
    };
    const oidcSignIn = async (browser = new LoginClient(service.url)) => {
      const { verifier, first } = oidcStart(browser);
      await redeem((await walk(browser, await first)).location ?? '', verifier);
    };
    const samlSignIn = async (browser = new LoginClient(service.url)) => samlAnswered(await walk(browser, await samlStart(browser)));
    // Browsers that signed in once: their later requests are single sign-on.
    const signedIn = await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const browser = new LoginClient(service.url);
        await oidcSignIn(browser);
        return browser;
      }),
    );
    // Each once, unmeasured: a broken chain fails the run here, not as a rate of errors.
    for (const once of [() => oidcSignIn(), () => samlSignIn(), () => oidcSignIn(signedIn[0]), () => samlSignIn(signedIn[0])]) await once();
    const [os, ss, oo, so] = await alternating(rounds, [
      loop(seconds, () => oidcSignIn()),
      loop(seconds, () => samlSignIn()),
      loop(seconds, (i) => oidcSignIn(signedIn[i])),
      loop(seconds, (i) => samlSignIn(signedIn[i])),
    ]);
    const mine = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1 };
    ctx.record({ ...SIGN_IN, ...mine, unit: 'sign-ins/s', ...ss, hashing: true });
    ctx.record({
      ...SIGN_IN,
      kind: 'peer',
      server: 'OIDC code-flow sign-in on the same service (password, code redeemed)',
      nextTo: 1,
      unit: 'sign-ins/s',
      ...os,
    });
    ctx.record({ ...IN_SESSION, ...mine, unit: 'responses/s', ...so });
    ctx.record({
      ...IN_SESSION,
      kind: 'peer',
      server: 'OIDC code flow in a session on the same service (code redeemed)',
      nextTo: 1,
      unit: 'responses/s',
      ...oo,
    });
    console.error(`  SAML ÷ OIDC: whole sign-in ${(ss.rate / os.rate).toFixed(2)}×, in a session ${(so.rate / oo.rate).toFixed(2)}×`);
  } finally {
    await service.stop();
    await store.drop();
  }
}
