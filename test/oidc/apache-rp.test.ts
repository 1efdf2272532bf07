import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { searchEvents, useService } from '../support/fixtures.js';
import { freePort } from '../support/service.js';
import { launchBrowser, newPage, submitLogin } from './support/browser.js';
import { CLAIMS_PATH, LOGGED_OUT_PATH, REDIRECT_PATH, SILENT_PATH } from './support/apache-config.js';
import type { ClientAuth } from './support/apache-config.js';
import { appVariables, logOutThroughApache, sessionInfo, signInThroughApache } from './support/apache-browser.js';
import { apacheSkipReason, startApache } from './support/apache-server.js';
import type { ApacheRelyingParty } from './support/apache-server.js';
import { PASSWORD, createAppKey, createHuman, createOidcApp, createProject } from './support/oidc-fixtures.js';

type Method = ClientAuth['method'];
const METHODS: Method[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/**
 * A relying party no one here wrote: Debian's Apache with mod_auth_openidc 2.4, one virtual host per
 * token endpoint authentication method, signing users in through the login UI in Chromium.
 */
describe('Apache with mod_auth_openidc as a relying party (Chromium)', { skip: apacheSkipReason() }, () => {
  const svc = useService();
  let browser: Browser;
  let apache: ApacheRelyingParty;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const origins = new Map<Method, string>();
  const clientIds = new Map<Method, string>();
  /** A fourth host: private_key_jwt, every authorization request as a signed request object (OIDCRequestObject). */
  let jarOrigin: string;

  before(async () => {
    browser = await launchBrowser();
    project = await createProject(svc);
    const ports = [await freePort(), await freePort(), await freePort()];
    const clients: ClientAuth[] = [];
    for (const [i, method] of METHODS.entries()) {
      const origin = `http://127.0.0.1:${ports[i]}`;
      const app = await createOidcApp(svc, project, {
        authMethod: method,
        redirectUris: [`${origin}${REDIRECT_PATH}`],
        postLogoutRedirectUris: [`${origin}${LOGGED_OUT_PATH}`],
      });
      if (method === 'private_key_jwt') {
        const key = await createAppKey(svc, app);
        clients.push({ method, clientId: app.clientId, keyId: key.keyId, privateKeyPem: key.key });
      } else {
        clients.push({ method, clientId: app.clientId, clientSecret: app.clientSecret! });
      }
      origins.set(method, origin);
      clientIds.set(method, app.clientId);
    }
    // The application requires request objects, so a sign-in through this host proves the module sent one.
    jarOrigin = `http://127.0.0.1:${await freePort()}`;
    const jarApp = await createOidcApp(svc, project, {
      authMethod: 'private_key_jwt',
      redirectUris: [`${jarOrigin}${REDIRECT_PATH}`],
      postLogoutRedirectUris: [`${jarOrigin}${LOGGED_OUT_PATH}`],
      settings: { requireSignedRequestObject: true },
    });
    const jarKey = await createAppKey(svc, jarApp);
    clients.push({ method: 'private_key_jwt', clientId: jarApp.clientId, keyId: jarKey.keyId, privateKeyPem: jarKey.key, requestObject: true });
    apache = await startApache(svc.config.publicUrl, clients, [...ports, Number(new URL(jarOrigin).port)]);
  });
  after(async () => {
    await apache?.stop();
    await browser?.close();
  });

  async function newUser() {
    const user = await createHuman(svc, project.orgId);
    return { ...user, loginName: `${user.userName}@${project.primaryDomain}` };
  }

  async function userinfoStatus(accessToken: string): Promise<number> {
    const res = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${accessToken}` } });
    return res.status;
  }

  for (const method of METHODS) {
    it(`${method}: sign-in through the login UI, claims reach the app, refresh, logout`, async () => {
      const origin = origins.get(method)!;
      const user = await newUser();
      const ui = await newPage(browser);
      try {
        const seen = await signInThroughApache(ui.page, origin, user.loginName, PASSWORD).catch((error: Error) => {
          throw new Error(`${error.message}\nApache's log:\n${apache.errorLog()}`);
        });
        // The ID token's subject and the userinfo endpoint's profile and e-mail claims, as the app sees them.
        assert.equal(seen.REMOTE_USER, user.loginName, 'OIDCRemoteUserClaim preferred_username');
        assert.equal(seen.OIDC_CLAIM_sub, user.userId);
        assert.equal(seen.OIDC_CLAIM_email, `${user.userName}@example.com`);
        assert.equal(seen.OIDC_CLAIM_given_name, 'Ada');
        assert.equal(seen.OIDC_CLAIM_family_name, 'Lovelace');

        const signedIn = await sessionInfo(ui.page, origin);
        assert.equal(signedIn.userinfo.sub, user.userId, 'mod_auth_openidc called the userinfo endpoint');
        assert.equal(signedIn.userinfo.given_name, 'Ada');
        assert.ok(signedIn.refresh_token, 'offline_access brought a refresh token');
        assert.equal(await userinfoStatus(signedIn.access_token), 200);

        // The refresh token grant, authenticated with the same method as the code exchange.
        const refreshed = await sessionInfo(ui.page, origin, { refresh: true });
        assert.notEqual(refreshed.access_token, signedIn.access_token, `a new access token\nApache's log:\n${apache.errorLog()}`);
        assert.ok(refreshed.refresh_token);
        assert.notEqual(refreshed.refresh_token, signedIn.refresh_token, 'refresh tokens rotate on use');
        assert.equal(await userinfoStatus(refreshed.access_token), 200);
        await ui.page.goto(`${origin}${CLAIMS_PATH}`);
        assert.equal((await appVariables(ui.page)).OIDC_CLAIM_sub, user.userId, 'the session goes on after the refresh');

        await logOutThroughApache(ui.page, origin);
        assert.equal(await userinfoStatus(refreshed.access_token), 401, 'the session and its tokens ended at Portcullis');
        const ended = await searchEvents(svc, { event_types: ['session.terminated'], aggregate_id: user.userId });
        assert.equal(ended.length, 1);
        // mod_auth_openidc revokes the refresh token at the revocation endpoint before it leaves (RFC 7009).
        const revoked = await searchEvents(svc, { event_types: ['user.token.revoked'], aggregate_id: user.userId });
        assert.ok(
          revoked.some((e) => e.payload.tokenKind === 'RefreshToken' && e.payload.clientId === clientIds.get(method) && e.payload.reason === 'revocation'),
          JSON.stringify(revoked.map((e) => e.payload)),
        );
        // Signed out at both ends: the app asks Portcullis again, which asks for the password again.
        await ui.page.goto(`${origin}${CLAIMS_PATH}`);
        await ui.page.waitForSelector('input[name="password"]');
        assert.ok(ui.page.url().startsWith(svc.config.publicUrl), ui.page.url());
      } finally {
        await ui.context.close();
      }
    });
  }

  it('OIDCRequestObject: the module signs each authorization request as a request object without exp (RFC 9101 allows it), and the sign-in completes', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    try {
      const authorizations: URL[] = [];
      ui.page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname === '/oauth/v2/authorize') authorizations.push(url);
      });
      const seen = await signInThroughApache(ui.page, jarOrigin, user.loginName, PASSWORD).catch((error: Error) => {
        throw new Error(`${error.message}\nApache's log:\n${apache.errorLog()}`);
      });
      assert.equal(seen.OIDC_CLAIM_sub, user.userId);
      const request = authorizations[0]?.searchParams.get('request');
      assert.ok(request, `a request object: ${authorizations.map(String).join('\n')}`);
      const claims = decodeJwt(request);
      assert.equal(claims.exp, undefined, 'mod_auth_openidc 2.4.12 sends no exp');
      assert.equal(claims.aud, svc.config.publicUrl);
      const signedIn = await sessionInfo(ui.page, jarOrigin);
      assert.equal(await userinfoStatus(signedIn.access_token), 200);
    } finally {
      await ui.context.close();
    }
  });

  it('a failed silent sign-in: the error redirect carries iss (RFC 9207), and OIDCDefaultURL turns it into an interactive sign-in', async () => {
    const origin = origins.get('client_secret_basic')!;
    const user = await newUser();
    const ui = await newPage(browser);
    try {
      const requested: string[] = [];
      ui.page.on('request', (request) => requested.push(request.url()));
      await ui.page.goto(`${origin}${SILENT_PATH}`);
      await ui.page.waitForSelector('input[name="password"]');
      const errorRedirect = requested.map((url) => new URL(url)).find((url) => url.origin === origin && url.pathname === REDIRECT_PATH);
      assert.ok(errorRedirect, requested.join('\n'));
      assert.equal(errorRedirect.searchParams.get('error'), 'login_required');
      assert.equal(errorRedirect.searchParams.get('iss'), svc.config.publicUrl);
      // mod_auth_openidc 2.4.12 started a new authorization request, without prompt=none: the login UI shows.
      assert.ok(ui.page.url().startsWith(`${svc.config.publicUrl}/ui/login/`), ui.page.url());
      await submitLogin(ui.page, user.loginName, PASSWORD);
      await ui.page.waitForURL(`${origin}${CLAIMS_PATH}`);
      assert.equal((await appVariables(ui.page)).OIDC_CLAIM_sub, user.userId);
    } finally {
      await ui.context.close();
    }
  });
});
