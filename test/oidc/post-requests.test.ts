import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';

/**
 * OIDC Core §3.1.2.1 / OIDF `oidcc-ensure-post-request-succeeds`: the authorization endpoint accepts
 * POST, and RP-Initiated Logout §2: so does end-session. The form is posted from another site
 * (localhost vs 127.0.0.1), where SameSite=Lax cookies are not sent with the POST itself: the session
 * must still be found.
 */
describe('POST to the authorization and end-session endpoints (Chromium, cross-site forms)', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let poster: { url: string; server: Server };
  let app: OidcApp;
  let config: oidc.Configuration;
  let loginName: string;
  let userId: string;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    poster = await startFormPoster();
    const project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    userId = user.userId;
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
    await new Promise((resolve) => poster?.server.close(resolve));
  });

  /** A page on another site that posts the given form to the given endpoint as soon as it loads. */
  function postPage(endpoint: string, form: Record<string, string>): string {
    const url = new URL('/post', poster.url);
    url.searchParams.set('action', new URL(endpoint, svc.config.publicUrl).href);
    url.searchParams.set('form', new URLSearchParams(form).toString());
    return url.href;
  }

  const params = (extra: Record<string, string>) => ({
    client_id: app.clientId,
    redirect_uri: `${rp.url}/cb`,
    response_type: 'code',
    scope: 'openid',
    ...extra,
  });

  it('a posted authorization request logs in, and a later posted prompt=none finds the session', async () => {
    const ui = await newPage(browser);
    try {
      const first = await authorize(rp, ui.page, postPage('/oauth/v2/authorize', params({ state: 's1', nonce: 'n1' })), (page) =>
        submitLogin(page, loginName, PASSWORD),
      );
      const tokens = await oidc.authorizationCodeGrant(config, first.url, { expectedState: 's1', expectedNonce: 'n1' });
      assert.equal(tokens.claims()!.sub, userId);

      const silent = await authorize(rp, ui.page, postPage('/oauth/v2/authorize', params({ state: 's2', prompt: 'none' })));
      assert.equal(callbackParams(silent).get('error'), null, `prompt=none failed: ${callbackParams(silent).get('error')}`);
      const again = await oidc.authorizationCodeGrant(config, silent.url, { expectedState: 's2' });
      assert.equal(again.claims()!.sub, userId);
      assert.equal(again.claims()!.auth_time, tokens.claims()!.auth_time, 'the existing session was reused, no new login');

      const logout = await authorize(
        rp,
        ui.page,
        postPage('/oidc/v1/end_session', { id_token_hint: again.id_token!, post_logout_redirect_uri: `${rp.url}/logged-out`, state: 'bye' }),
        (page) => page.click('button[name="logout"]'),
      );
      assert.equal(logout.url.pathname, '/logged-out');
      assert.equal(logout.url.searchParams.get('state'), 'bye');
      const after = await authorize(rp, ui.page, postPage('/oauth/v2/authorize', params({ state: 's3', prompt: 'none' })));
      assert.equal(callbackParams(after).get('error'), 'login_required');
    } finally {
      await ui.context.close();
    }
  });

  it('a posted request is redirected with its parameters; duplicates are refused like in a query', async () => {
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    const form = new URLSearchParams(params({ state: 'x' }));
    const res = await fetch(url, { method: 'POST', body: form, redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const location = new URL(res.headers.get('location')!, url);
    assert.equal(location.pathname, '/oauth/v2/authorize');
    assert.deepEqual(Object.fromEntries(location.searchParams), Object.fromEntries(form));

    url.search = 'state=y';
    const twice = await fetch(url, { method: 'POST', body: form, redirect: 'manual' });
    const refused = await fetch(new URL(twice.headers.get('location')!, url), { redirect: 'manual' });
    const back = new URL(refused.headers.get('location')!);
    assert.equal(back.origin + back.pathname, `${rp.url}/cb`);
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.match(back.searchParams.get('error_description')!, /state/);
  });

  it('a body that is not a form or is too large is refused and never redirected', async () => {
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    const json = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params({})), redirect: 'manual' });
    assert.equal(json.status, 415);
    assert.equal(json.headers.get('location'), null);
    assert.equal(((await json.json()) as { error: string }).error, 'invalid_request');

    const big = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `state=${'a'.repeat(70_000)}`,
      redirect: 'manual',
    });
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('location'), null);
  });
});

/** Serves, on http://localhost (another site than the service's 127.0.0.1), a self-submitting form. */
async function startFormPoster(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/post') return void res.writeHead(404).end();
    const inputs = [...new URLSearchParams(url.searchParams.get('form') ?? '')]
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!DOCTYPE html><form method="post" action="${escapeHtml(url.searchParams.get('action') ?? '')}">${inputs}</form><script>document.forms[0].submit()</script>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
