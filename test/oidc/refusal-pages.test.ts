import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { useService } from '../support/fixtures.js';
import { launchBrowser, newPage } from './support/browser.js';
import { createHuman, createOidcApp, createProject, PASSWORD } from './support/oidc-fixtures.js';
import { SignInFlow, setLoginPolicy } from './support/second-factor.js';

const RP = 'http://127.0.0.1:65532';

/**
 * Refusals a person meets in the browser are pages of the login UI, never an API's JSON, and a page offers a way back
 * only where there is one (docs/application-access.md, "When someone is refused").
 */
describe('refusal pages in the browser', () => {
  const svc = useService();

  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  it('end-session with a post_logout_redirect_uri the client did not register: the login UI error page in the browser, no redirect', async () => {
    const project = await createProject(svc);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const url = new URL('/oidc/v1/end_session', svc.config.publicUrl);
    url.search = new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: `${RP}/elsewhere` }).toString();
    const ui = await newPage(browser);
    try {
      const response = await ui.page.goto(String(url));
      assert.equal(response!.status(), 400);
      assert.equal(ui.page.url(), String(url), 'no redirect');
      const type = (await response!.allHeaders())['content-type'] ?? '';
      const text = (await ui.page.textContent('body')) ?? '';
      assert.match(type, /^text\/html/, `a page, not ${type}: ${text.slice(0, 200)}`);
      assert.equal(await ui.page.getAttribute('[data-error]', 'data-error'), 'invalid_request');
      assert.match(text, /post_logout_redirect_uri/);
    } finally {
      await ui.context.close();
    }
  });

  it('end-session refused to a plain HTTP client (no Accept header): still the error page', async () => {
    const project = await createProject(svc);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const url = new URL('/oidc/v1/end_session', svc.config.publicUrl);
    url.search = new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: `${RP}/elsewhere` }).toString();
    for (const accept of [undefined, '*/*']) {
      const res = await fetch(url, { redirect: 'manual', headers: accept ? { accept } : {} });
      const text = await res.text();
      assert.equal(res.status, 400, text.slice(0, 300));
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, `Accept ${accept}: ${res.headers.get('content-type')} ${text.slice(0, 200)}`);
    }
  });

  async function refusedPage(settings: Record<string, unknown>): Promise<string> {
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', settings: { access: 'granted', ...settings } }, RP);
    const user = await createHuman(svc, project.orgId);
    const flow = new SignInFlow(svc, app, `${RP}/cb`);
    await flow.authorize();
    const refused = await flow.password(`${user.userName}@${project.primaryDomain}`, PASSWORD);
    assert.equal(refused.status, 403, refused.text.slice(0, 300));
    assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(refused.text, /data-error="access_denied"/);
    return refused.text;
  }

  it("access denied: the page links back to the application's homeUrl", async () => {
    const text = await refusedPage({ homeUrl: 'https://payroll.example.com/start?from=sso' });
    const links = [...text.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => ({ href: m[1], text: m[2] }));
    assert.deepEqual(
      links.filter((l) => /return/i.test(l.text)),
      [{ href: 'https://payroll.example.com/start?from=sso', text: 'Return to the application' }],
      `the return link: ${JSON.stringify(links)}`,
    );
  });

  it('access denied without a homeUrl: no link and no promise of a way back', async () => {
    const text = await refusedPage({});
    assert.doesNotMatch(text, /Return to the application/i);
    assert.doesNotMatch(text, /<a [^>]*href=/);
  });
});
