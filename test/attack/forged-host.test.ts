import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { csrfOf } from './support/login-client.js';
import type { PageResponse } from './support/login-client.js';
import { RawHttpClient } from './support/raw-http.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';
const BULK_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

/** The ways a client or a careless proxy can claim another origin (RFC 9110 §7.2, RFC 7239, X-Forwarded-*). */
const FORGERIES: Record<string, string>[] = [
  { host: 'evil.example' },
  { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-port': '443', forwarded: 'host=evil.example;proto=https' },
];

/** The discovery document's endpoint URLs all under PUBLIC_URL, and nothing naming the forged host. */
async function assertDiscoveryAt(serviceUrl: string, publicUrl: string, forgery: Record<string, string>) {
  const res = await new RawHttpClient(serviceUrl, forgery).get('/.well-known/openid-configuration');
  assert.equal(res.status, 200, res.text);
  assert.doesNotMatch(res.text, /evil/i, JSON.stringify(forgery));
  const doc = JSON.parse(res.text) as Record<string, unknown>;
  assert.equal(doc.issuer, publicUrl);
  const urls = Object.entries(doc).filter(([key, value]) => typeof value === 'string' && (key.endsWith('_endpoint') || key.endsWith('_uri')));
  assert.ok(urls.length >= 6, `endpoint URLs: ${urls.map(([k]) => k).join(', ')}`);
  for (const [key, value] of urls) assert.ok((value as string).startsWith(`${publicUrl}/`), `${key} = ${String(value)} with ${JSON.stringify(forgery)}`);
}

/** A redirect stays relative, or goes to PUBLIC_URL or the registered client; never to the forged host. */
function assertLocation(res: PageResponse, publicUrl: string, what: string) {
  assert.ok(res.location, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
  assert.doesNotMatch(res.location, /evil/i, `${what}: ${res.location}`);
  if (/^[a-z]+:/i.test(res.location) || res.location.startsWith('//')) {
    assert.ok(res.location.startsWith(`${publicUrl}/`) || res.location.startsWith(`${RP}/`), `${what}: ${res.location}`);
  }
}

describe('absolute URLs come from PUBLIC_URL, never from Host or forwarded headers', () => {
  const svc = useService();
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let tenant: ScimTenant;

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    tenant = await scimTenant(svc);
  });

  it('discovery document', async () => {
    for (const forgery of FORGERIES) await assertDiscoveryAt(svc.url, svc.config.publicUrl, forgery);
  });

  it('login UI redirects, the post-login returnTo, the code redirect, the logout form and its redirect', async () => {
    const user = await createHuman(svc, project.orgId);
    for (const forgery of FORGERIES) {
      const browser = new RawHttpClient(svc.url, forgery);
      const params = { client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' };
      const authorize = await browser.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
      assert.equal(authorize.status, 303, authorize.text.slice(0, 300));
      assertLocation(authorize, svc.config.publicUrl, 'authorize → login UI');
      const loginPage = await browser.get(authorize.location!);
      assert.equal(loginPage.status, 200);
      assert.doesNotMatch(loginPage.text, /evil/i);
      const uid = /\/ui\/login\/([^/?]+)/.exec(authorize.location!)![1];
      const loggedIn = await browser.postForm(`/ui/login/${uid}/login`, {
        csrf: csrfOf(loginPage.text),
        loginName: `${user.userName}@${project.primaryDomain}`,
        password: PASSWORD,
      });
      assert.equal(loggedIn.status, 303, loggedIn.text.slice(0, 300));
      assertLocation(loggedIn, svc.config.publicUrl, 'login → returnTo');
      let returnTo = loggedIn;
      if (loggedIn.location === `/ui/login/${uid}`) {
        // First the offer to enrol a second factor (docs/product-rules.md, "Multi-factor sign-in"), declined.
        const offer = await browser.get(loggedIn.location);
        assert.doesNotMatch(offer.text, /evil/i);
        returnTo = await browser.postForm(`/ui/login/${uid}/enrol/skip`, { csrf: csrfOf(offer.text) });
        assertLocation(returnTo, svc.config.publicUrl, 'offer declined → returnTo');
      }
      const resumed = await browser.get(new URL(returnTo.location!, svc.url).pathname);
      assertLocation(resumed, svc.config.publicUrl, 'resume → redirect_uri');
      assert.ok(resumed.location!.startsWith(`${RP}/cb?code=`), resumed.location);

      const logoutPage = await browser.get(`/oidc/v1/end_session?client_id=${app.clientId}`);
      assert.equal(logoutPage.status, 200, logoutPage.text.slice(0, 300));
      assert.doesNotMatch(logoutPage.text, /evil/i, 'the logout form posts to PUBLIC_URL');
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(logoutPage.text)?.[1];
      assert.ok(xsrf, 'oidc-provider logout form');
      const loggedOut = await browser.postForm('/oidc/v1/end_session/confirm', { xsrf, logout: 'yes' });
      assert.equal(loggedOut.status, 303, loggedOut.text.slice(0, 300));
      assertLocation(loggedOut, svc.config.publicUrl, 'logout → success page');
    }
  });

  it('SCIM Location, meta.location of created, listed and bulk-created users, ServiceProviderConfig', async () => {
    const base = `${svc.config.publicUrl}/scim/v2/${tenant.orgId}`;
    for (const forgery of FORGERIES) {
      const scim = new RawHttpClient(svc.url, { ...forgery, authorization: `Bearer ${tenant.token}`, accept: 'application/scim+json' });
      const created = await scim.post(`${tenant.base}/Users`, JSON.stringify(userBody(`host-${Math.random().toString(36).slice(2)}`)), 'application/scim+json');
      assert.equal(created.status, 201, created.text);
      const user = JSON.parse(created.text);
      assert.equal(created.location, `${base}/Users/${user.id}`);
      assert.equal(user.meta.location, `${base}/Users/${user.id}`);

      const listed = JSON.parse((await scim.get(`${tenant.base}/Users?filter=${encodeURIComponent(`id eq "${user.id}"`)}`)).text);
      assert.equal(listed.Resources[0].meta.location, `${base}/Users/${user.id}`);

      const bulk = await scim.post(
        `${tenant.base}/Bulk`,
        JSON.stringify({
          schemas: [BULK_REQUEST],
          Operations: [{ method: 'POST', path: '/Users', bulkId: 'a', data: userBody(`bulk-${Math.random().toString(36).slice(2)}`) }],
        }),
        'application/scim+json',
      );
      assert.equal(bulk.status, 200, bulk.text);
      assert.match(JSON.parse(bulk.text).Operations[0].location, new RegExp(`^${base}/Users/`));

      const spc = await scim.get(`${tenant.base}/ServiceProviderConfig`);
      assert.equal(JSON.parse(spc.text).meta.location, `${base}/ServiceProviderConfig`);
      for (const res of [created, bulk, spc]) assert.doesNotMatch(res.text, /evil/i);
    }
  });
});

describe('behind a TLS proxy (https PUBLIC_URL), forwarded headers name neither host nor scheme', () => {
  const svc = useService({ PUBLIC_URL: 'https://id.example.test' });

  it('discovery stays at https://id.example.test whatever X-Forwarded-Host/-Proto say', async () => {
    for (const forgery of [...FORGERIES, { 'x-forwarded-proto': 'http' }, { host: 'evil.example', 'x-forwarded-proto': 'http, https' }]) {
      await assertDiscoveryAt(svc.url, 'https://id.example.test', forgery);
    }
  });
});
