import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { authorizeParams } from '../oidc/support/authorize-params.js';
import { LoginClient } from './support/login-client.js';
import type { PageResponse } from './support/login-client.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';
const EVIL = 'https://evil.example';

/** No redirect at all, or one that stays on the service or goes to the registered client. */
function assertNotOpen(res: PageResponse, svcUrl: string, what: string) {
  if (!res.location) return;
  const target = new URL(res.location, svcUrl);
  const allowed = target.host === new URL(svcUrl).host || target.href.startsWith(`${RP}/cb`) || target.href.startsWith(`${RP}/logged-out`);
  assert.ok(allowed, `${what} redirects to ${res.location}`);
  assert.doesNotMatch(res.location, /evil/i, `${what} redirects to ${res.location}`);
}

describe('no open redirect', () => {
  const svc = useService();
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const params = (extra: Record<string, string> = {}) => authorizeParams(app.clientId, extra);

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('redirect_uri: anything but the registered URI gets an error page, never a redirect', async () => {
    const variants = [
      `${EVIL}/cb`,
      `${RP}/cb/../../evil`,
      `${RP}/cb?next=${EVIL}`,
      `${RP}/cb#${EVIL}`,
      `${RP}.evil.example/cb`,
      `http://127.0.0.1:65530@evil.example/cb`,
      `//evil.example/cb`,
      `${RP}/CB`,
      `${RP}/cb/`,
      `javascript:alert(1)//${RP}/cb`,
      `${RP}%2F%2Fevil.example/cb`,
    ];
    for (const redirectUri of variants) {
      for (const extra of [{}, { prompt: 'none' }, { response_type: 'bogus' }] as Array<Record<string, string>>) {
        const res = await new LoginClient(svc.url).get(`/oauth/v2/authorize?${new URLSearchParams(params({ redirect_uri: redirectUri, ...extra }))}`);
        assert.equal(res.location, undefined, `${redirectUri} ${JSON.stringify(extra)} → ${res.status} ${res.location}`);
        assert.equal(res.status, 400, `${redirectUri}: ${res.status}`);
        assert.match(res.text, /data-error="invalid_redirect_uri"|data-error="invalid_request"/);
      }
    }
  });

  it('post_logout_redirect_uri: an unregistered one never receives the browser, before or after the confirmation', async () => {
    const user = await createHuman(svc, project.orgId);
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin(params());
    await client.follow(await client.post(`/ui/login/${uid}/login`, { csrf, loginName: `${user.userName}@${project.primaryDomain}`, password: PASSWORD }));
    for (const target of [`${EVIL}/logged-out`, `${RP}/logged-out/../evil`, `${RP}.evil.example/logged-out`, `//evil.example`]) {
      const res = await client.get(`/oidc/v1/end_session?${new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: target, state: 's' })}`);
      assertNotOpen(res, svc.url, `end_session ${target}`);
      assert.notEqual(res.status, 200, `${target} is refused before the confirmation page: ${res.status}`);
    }
    // A valid request shows the confirmation form; confirming it goes to the registered URI only.
    const confirm = await client.get(
      `/oidc/v1/end_session?${new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: `${RP}/logged-out`, state: 's' })}`,
    );
    assert.equal(confirm.status, 200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)?.[1];
    assert.ok(xsrf, 'oidc-provider logout form');
    const done = await client.post('/oidc/v1/end_session/confirm', { xsrf, logout: 'yes', post_logout_redirect_uri: `${EVIL}/x` });
    assertNotOpen(done, svc.url, 'end_session confirm with an injected post_logout_redirect_uri');
    assert.ok(done.location?.startsWith(`${RP}/logged-out`), `confirmed logout goes to the registered URI: ${done.location}`);
  });

  it('login UI: return/next/redirect-like parameters are ignored; the login ends at the registered redirect_uri', async () => {
    const user = await createHuman(svc, project.orgId);
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin(params());
    const bait = { return: EVIL, returnTo: EVIL, next: EVIL, redirect: EVIL, redirect_uri: EVIL, continue: EVIL, url: EVIL, form: EVIL };
    const page = await client.get(`/ui/login/${uid}?${new URLSearchParams(bait)}`);
    assert.equal(page.status, 200);
    assert.equal(page.location, undefined);
    assert.doesNotMatch(page.text, /evil/);
    const done = await client.post(`/ui/login/${uid}/login?${new URLSearchParams(bait)}`, {
      ...bait,
      csrf,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
    });
    assert.equal(done.status, 303);
    assertNotOpen(done, svc.url, 'login POST');
    const final = await client.follow(done);
    assert.ok(final.location?.startsWith(`${RP}/cb?code=`), `the code goes to the registered redirect_uri: ${final.location}`);
  });

  it('the interaction uid: a forged or foreign uid gives an error page (400), never a redirect', async () => {
    const client = new LoginClient(svc.url);
    const { csrf } = await client.startLogin(params());
    const other = await new LoginClient(svc.url).startLogin(params());
    for (const uid of [encodeURIComponent(`${EVIL}/x`), encodeURIComponent('//evil.example'), '..%2F..%2Foauth%2Fv2%2Fauthorize', other.uid]) {
      const shown = await client.get(`/ui/login/${uid}`);
      assertNotOpen(shown, svc.url, `GET uid ${uid}`);
      assert.equal(shown.status, 400, `GET uid ${uid}: ${shown.status}`);
      assert.doesNotMatch(shown.text, /<form/, 'no form of the real interaction under a foreign uid');
      const posted = await client.post(`/ui/login/${uid}/login`, { csrf, loginName: 'x', password: 'y' });
      assertNotOpen(posted, svc.url, `POST uid ${uid}`);
      assert.equal(posted.status, 400, `POST uid ${uid}: ${posted.status}`);
    }
  });
});
