import assert from 'node:assert/strict';
import { openRegistration } from '../support/registration.js';
import { before, describe, it } from 'node:test';
import { createHuman, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { databaseState } from './support/db-state.js';
import { LoginClient } from './support/login-client.js';
import type { PageResponse } from './support/login-client.js';

const RP = 'http://127.0.0.1:65530';

function assertPageHeaders(page: PageResponse, what: string) {
  assert.equal(page.headers.get('cache-control'), 'no-store', `${what}: Cache-Control`);
  assert.equal(page.headers.get('x-frame-options'), 'DENY', `${what}: X-Frame-Options`);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/, `${what}: CSP ${csp}`);
  assert.match(csp, /frame-ancestors 'none'/, `${what}: CSP ${csp}`);
  // Forms post to this origin, and redirect after a post only to the client's (RP) origin.
  assert.match(csp, /form-action 'self'( http:\/\/127\.0\.0\.1:65530)?;/, `${what}: CSP ${csp}`);
}

describe('login forms: CSRF and security headers', () => {
  const svc = useService();
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const params = () => ({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });

  before(async () => {
    await openRegistration(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  const browser = () => new LoginClient(svc.url);

  it('every form of every login page carries a CSRF value', async () => {
    const client = browser();
    const { uid, page } = await client.startLogin(params());
    const register = await client.get(`/ui/login/${uid}?form=register`);
    for (const html of [page.text, register.text]) {
      const forms = html.match(/<form[\s\S]*?<\/form>/g) ?? [];
      assert.ok(forms.length > 0);
      for (const form of forms) assert.match(form, /<input type="hidden" name="csrf" value="[^"]{20,}">/);
    }
  });

  for (const step of [
    'login',
    'select',
    'register',
    'code',
    'passkey',
    'enrol/totp',
    'enrol/totp/confirm',
    'enrol/passkey',
    'enrol/skip',
    'continue',
  ] as const) {
    it(`POST ${step} without a CSRF value or with another interaction's is refused with 403 and changes nothing`, async () => {
      const user = await createHuman(svc, project.orgId);
      const victim = browser();
      const { uid } = await victim.startLogin(params());
      const other = await browser().startLogin(params());
      const form = {
        loginName: `${user.userName}@${project.primaryDomain}`,
        password: PASSWORD,
        firstName: 'Eve',
        lastName: 'Mallory',
        email: `eve-${step}@example.com`,
        userName: `eve-${step}-${Date.now()}`,
      };
      for (const csrf of [undefined, '', other.csrf, 'x'.repeat(43)]) {
        const before = await databaseState(svc);
        const res = await victim.post(`/ui/login/${uid}/${step}`, csrf === undefined ? form : { ...form, csrf });
        assert.equal(res.status, 403, `${step} with csrf=${JSON.stringify(csrf)}: ${res.status}`);
        assert.equal(res.location, undefined, 'no redirect: the interaction is not finished');
        assertPageHeaders(res, `${step} 403`);
        assert.equal(await databaseState(svc), before, `${step} with csrf=${JSON.stringify(csrf)} changed the database`);
      }
    });
  }

  it('login UI pages and their error pages carry the security headers', async () => {
    const client = browser();
    const { uid, page } = await client.startLogin(params());
    assertPageHeaders(page, 'login page');
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /form-action 'self' http:\/\/127\.0\.0\.1:65530;/,
      "the interaction's redirect origin, for the redirect after the last post",
    );
    assertPageHeaders(await client.get(`/ui/login/${uid}?form=register`), 'register page');
    assertPageHeaders(await new LoginClient(svc.url).get(`/ui/login/${uid}`), 'login page without the interaction cookie');
    assertPageHeaders(await client.get('/ui/login/no-such-interaction'), 'unknown interaction');
  });
});

/**
 * PUBLIC_URL https: TLS ends at a proxy in front of the service, which forwards X-Forwarded-Proto.
 * KNOWN FAILURE until src/oidc/provider trusts that proxy: today oidc-provider refuses to set its Secure
 * cookies over the plain hop ("Cannot send secure cookie over unencrypted connection") and every
 * authorization request answers 500.
 */
describe('login cookies behind a TLS proxy (PUBLIC_URL https)', () => {
  const svc = useService({ PUBLIC_URL: 'https://id.example.test' });
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const params = () => ({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });

  before(async () => {
    await openRegistration(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  // The proxy's X-Forwarded-Proto; the service takes its scheme from PUBLIC_URL anyway.
  const browser = () => new LoginClient(svc.url, { 'x-forwarded-proto': 'https' }, svc.config.publicUrl);

  it('every cookie of a sign-in is HttpOnly, SameSite=Lax, Secure and Path=/', async () => {
    const user = await createHuman(svc, project.orgId);
    const client = browser();
    const { uid, csrf } = await client.startLogin(params());
    const done = await client.post(`/ui/login/${uid}/login`, { csrf, loginName: `${user.userName}@${project.primaryDomain}`, password: PASSWORD });
    assert.equal(done.status, 303, done.text.slice(0, 300));
    await client.follow(done);
    const names = new Set(client.setCookies.map((c) => c.split('=')[0]));
    assert.ok(names.has('portcullis_accounts') && names.has('_session') && names.has('_interaction'), [...names].join(', '));
    for (const line of client.setCookies) {
      const attrs = line.split(';').map((a) => a.trim().toLowerCase());
      assert.ok(attrs.includes('httponly'), `HttpOnly: ${line}`);
      assert.ok(attrs.includes('samesite=lax'), `SameSite=Lax: ${line}`);
      assert.ok(attrs.includes('secure'), `Secure: ${line}`);
      assert.ok(
        attrs.some((a) => a.startsWith('path=/')),
        `Path: ${line}`,
      );
    }
  });
});

/**
 * The HTML that oidc-provider renders itself: its error page, the logout page and the form_post page.
 */
describe('security headers on the pages oidc-provider renders', () => {
  const svc = useService();
  let app: OidcApp;

  before(async () => {
    await openRegistration(svc);
    app = await createOidcApp(svc, await createProject(svc), { authMethod: 'client_secret_basic' }, RP);
  });

  it('error page, logout page and form_post response carry them', async () => {
    const authorize = (extra: Record<string, string>) =>
      `/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', ...extra })}`;
    const client = new LoginClient(svc.url);
    const error = await client.get(authorize({ redirect_uri: 'https://evil.example/cb' }));
    assert.match(error.text, /data-error="invalid_redirect_uri"/);
    assertPageHeaders(error, 'provider error page');
    assert.match(error.headers.get('content-security-policy') ?? '', /form-action 'self';/, 'an unregistered redirect URI is never allowed as a form target');
    const logout = await client.get('/oidc/v1/end_session');
    assert.match(logout.text, /end_session\/confirm/);
    assertPageHeaders(logout, 'logout page');
    const formPost = await client.get(authorize({ prompt: 'none', response_mode: 'form_post' }));
    assert.match(formPost.text, /<form method="post" action="http:\/\/127\.0\.0\.1:65530\/cb">/);
    assertPageHeaders(formPost, 'form_post page');
    assert.match(
      formPost.headers.get('content-security-policy') ?? '',
      /form-action 'self' http:\/\/127\.0\.0\.1:65530;/,
      'the form posts to the checked redirect URI',
    );
  });
});

describe('unknown login names and wrong passwords are indistinguishable', () => {
  // Cost 10 (about 60 ms a check) makes one bcrypt check stand out from request and database noise.
  const svc = useService({ BCRYPT_COST: '10' });
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };

  before(async () => {
    await openRegistration(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  async function attempt(loginName: string) {
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });
    const started = process.hrtime.bigint();
    const res = await client.post(`/ui/login/${uid}/login`, { csrf, loginName, password: 'not-the-password' });
    return { res, ms: Number(process.hrtime.bigint() - started) / 1e6, uid };
  }

  it('same status, headers, cookies and body apart from the echoed name', async () => {
    const user = await createHuman(svc, project.orgId);
    const known = await attempt(`${user.userName}@${project.primaryDomain}`);
    const unknown = await attempt(`nobody-${Date.now()}@${project.primaryDomain}`);
    assert.equal(known.res.status, 401);
    assert.equal(unknown.res.status, known.res.status);
    // ETag and Content-Length follow the body, which echoes the (different) login name.
    const headers = (r: PageResponse) => [...r.headers].filter(([k]) => !['date', 'content-length', 'etag', 'x-request-id'].includes(k));
    assert.deepEqual(headers(unknown.res), headers(known.res));
    // The passkey challenge is random per page (webauthn-challenges.ts), like the CSRF value per interaction.
    const normalize = (text: string, uid: string) =>
      text
        .replace(/value="[^"]*"/g, 'value=""')
        .replace(/"challenge":"[^"]*"/g, '"challenge":""')
        .replaceAll(uid, 'UID');
    assert.equal(normalize(unknown.res.text, unknown.uid), normalize(known.res.text, known.uid));
  });

  it('the median times differ by less than half of one bcrypt check (30 alternating attempts each)', async (t) => {
    const ROUNDS = 30;
    // Each known user fails twice at most: the lockout (10 failures) must not change the path taken.
    const users = await Promise.all(Array.from({ length: ROUNDS / 2 }, () => createHuman(svc, project.orgId)));
    const bcryptMs = await timeOneCheck(svc);
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    await attempt('warm-up');
    for (let i = 0; i < ROUNDS; i++) {
      knownMs.push((await attempt(`${users[i % users.length].userName}@${project.primaryDomain}`)).ms);
      unknownMs.push((await attempt(`nobody-${i}@${project.primaryDomain}`)).ms);
    }
    // Paired differences (each known attempt against the unknown one right after it) cancel load drift.
    const gap = Math.abs(median(knownMs.map((k, i) => k - unknownMs[i])));
    const figures = `medians: known ${median(knownMs).toFixed(1)} ms, unknown ${median(unknownMs).toFixed(1)} ms, paired difference ${gap.toFixed(1)} ms; one bcrypt check ${bcryptMs.toFixed(1)} ms`;
    t.diagnostic(figures);
    assert.ok(gap < bcryptMs * 0.5, figures);
  });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The median time of one bcrypt verification at the service's cost, measured in this process. */
async function timeOneCheck(svc: TestService): Promise<number> {
  const bcrypt = (await import('bcrypt')).default;
  const hash = await bcrypt.hash('x', svc.config.bcryptCost);
  const times: number[] = [];
  for (let i = 0; i < 9; i++) {
    const started = process.hrtime.bigint();
    await bcrypt.compare('y', hash);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}
