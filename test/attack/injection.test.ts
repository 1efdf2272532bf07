import assert from 'node:assert/strict';
import { openRegistration } from '../support/registration.js';
import { before, describe, it } from 'node:test';
import { createCaller, createOrg, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { BCRYPT_HASH, importBody, postImport } from '../import/import.helpers.js';
import { databaseState } from './support/db-state.js';
import { authorizeParams } from '../oidc/support/authorize-params.js';
import { LoginClient } from './support/login-client.js';
import { MARK } from '../../src/login/login.views.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const RP = 'http://127.0.0.1:65530';

/** SQL an attacker would try through any string that reaches a query. */
const SQL = [
  "x' OR '1'='1",
  'a"; DROP TABLE users; --',
  "' UNION SELECT password_hash, id FROM users --",
  "Robert'); DROP TABLE users;--",
  '1/**/OR/**/1=1',
  '%',
  '_',
  '\\',
  "O'Brien",
];

/** A userName carrying the payload: no white space is allowed in one, so SQL's own comment stands in for it. */
const userNameOf = (i: number, payload: string) => `inj${i}${payload.replaceAll(' ', '/**/')}`;

describe('injection: SQL through filters, sortBy, ids and the import', () => {
  const svc = useService();
  let scim: string;
  let token: string;
  let orgId: string;
  const created = new Map<string, string>();

  before(async () => {
    const org = await createOrg(svc);
    orgId = org.id;
    token = (await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] })).token;
    scim = `/scim/v2/${org.id}`;
    for (const [i, payload] of SQL.entries()) {
      const res = await svc.api('POST', `${scim}/Users`, { token, body: { schemas: [USER], userName: userNameOf(i, payload), name: { familyName: payload } } });
      assert.equal(res.status, 201, `${payload}: ${res.text}`);
      created.set(payload, res.body.id);
    }
  });

  async function list(filter: string) {
    const res = await svc.api('GET', `${scim}/Users?filter=${encodeURIComponent(filter)}&count=100`, { token });
    assert.equal(res.status, 200, `${filter}: ${res.text}`);
    return res.body.Resources as Array<{ id: string; userName: string; name?: { familyName?: string } }>;
  }

  it('filter values come back unchanged as data, matching exactly the users that hold them', async () => {
    const before = await databaseState(svc);
    for (const [i, payload] of SQL.entries()) {
      const byName = await list(`userName eq ${JSON.stringify(userNameOf(i, payload))}`);
      assert.deepEqual(
        byName.map((u) => [u.id, u.userName, u.name?.familyName]),
        [[created.get(payload), userNameOf(i, payload), payload]],
      );
      const byFamily = await list(`name.familyName eq ${JSON.stringify(payload)}`);
      assert.deepEqual(
        byFamily.map((u) => u.id),
        [created.get(payload)],
        `familyName eq ${payload}`,
      );
      const containing = await list(`name.familyName co ${JSON.stringify(payload)}`);
      const expected = SQL.filter((p) => p.toLowerCase().includes(payload.toLowerCase()))
        .map((p) => created.get(p))
        .sort();
      assert.deepEqual(containing.map((u) => u.id).sort(), expected, `co ${payload}: LIKE wildcards are literal`);
    }
    assert.equal(await databaseState(svc), before, 'reads changed nothing');
  });

  it('sortBy, sortOrder, attributes and ids with SQL are refused or ignored, never executed', async () => {
    const before = await databaseState(svc);
    const all = (await svc.api('GET', `${scim}/Users`, { token })).body.totalResults;
    for (const payload of [...SQL, 'userName; DELETE FROM users', '(SELECT password_hash FROM users LIMIT 1)', 'password_hash', 'userName desc, id']) {
      const q = encodeURIComponent(payload);
      for (const path of [
        `${scim}/Users?sortBy=${q}`,
        `${scim}/Users?sortBy=userName&sortOrder=${q}`,
        `${scim}/Users?attributes=${q}`,
        `${scim}/Users?startIndex=${q}`,
      ]) {
        const res = await svc.api('GET', path, { token });
        assert.ok(res.status === 200 || res.status === 400, `${path} → ${res.status} ${res.text}`);
        if (res.status === 200) assert.equal(res.body.totalResults, all, `${path}: the list is the same list`);
        assert.doesNotMatch(res.text, /\$2[aby]\$/, 'no password hash leaks');
      }
      for (const [method, path] of [
        ['GET', `${scim}/Users/${encodeURIComponent(payload)}`],
        ['DELETE', `${scim}/Users/${encodeURIComponent(payload)}`],
        ['POST', `/management/v1/orgs/${orgId}/users/${encodeURIComponent(payload)}/pats`],
        ['POST', `/management/v1/orgs/${encodeURIComponent(payload)}/projects`],
      ] as const) {
        const res = await svc.api(method, path, { token: svc.adminToken, ...(method === 'POST' ? { body: { name: 'p' } } : {}) });
        assert.ok(res.status === 404 || res.status === 400, `${method} ${path} → ${res.status} ${res.text}`);
      }
      const events = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body: { aggregate_id: payload, event_types: [payload] } });
      assert.ok(events.status === 200 || events.status === 400, events.text);
      if (events.status === 200) assert.deepEqual(events.body.events, []);
    }
    assert.equal(await databaseState(svc), before);
  });

  it('import fields with SQL are stored and read back as the same text', async () => {
    const users = SQL.map((payload, i) => ({
      userId: `imp-${i}`,
      // User names take no white space; the names carry the payload as it is.
      user: {
        userName: `imp${i}${payload.replace(/\s+/g, '')}`,
        profile: { firstName: payload, lastName: payload },
        email: { email: `imp${i}@example.com` },
        hashedPassword: { value: BCRYPT_HASH },
      },
    }));
    const result = await postImport(svc, importBody([{ orgId, humanUsers: users }]));
    assert.deepEqual(
      result.errors.filter((e) => e.type === 'user'),
      [],
    );
    for (const [i, payload] of SQL.entries()) {
      const found = await list(`userName eq ${JSON.stringify(`imp${i}${payload.replace(/\s+/g, '')}`)}`);
      assert.equal(found.length, 1, payload);
      assert.equal(found[0].id, `imp-${i}`);
      assert.equal(found[0].name?.familyName, payload);
    }
    const [{ n }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [orgId]);
    assert.equal(Number(n), 1 + SQL.length * 2, 'the caller, the SCIM users and the imported users: nothing more, nothing less');
  });
});

describe('injection: HTML through login pages, CR/LF through state', () => {
  const svc = useService();
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const XSS = `"><script>alert(1)</script><img src=x onerror=alert(2)><svg onload=alert(3)>`;
  const params = (extra: Record<string, string> = {}) => authorizeParams(app.clientId, extra);
  // Escaped input may keep `onerror=` as text inside a quoted value (harmless: its quote is escaped
  // too, as the positive assertions show); what must never appear is a tag from the input.
  // The pages' own scripts (the passkey ceremony: its JSON options and two same-origin files) are not input.
  const OWN_SCRIPTS = /<script type="application\/json" id="passkey-options-[a-z-]+">[^<]*<\/script>|<script src="\/ui\/login\/assets\/[a-z]+\.js"><\/script>/g;
  // Nor is the header's mark, the one drawing every page carries (docs/design.md).
  const noMarkup = (html: string, what: string) =>
    assert.doesNotMatch(html.replace(OWN_SCRIPTS, '').replaceAll(MARK, ''), /<script|<img|<svg/i, `${what} renders markup from input`);

  before(async () => {
    await openRegistration(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('login_hint and ui_locales are escaped on the login page', async () => {
    const { page } = await new LoginClient(svc.url).startLogin(params({ login_hint: XSS, ui_locales: `de${XSS}` }));
    noMarkup(page.text, 'login_hint/ui_locales');
    assert.match(page.text, /value="&#34;&#62;&#60;script&#62;alert\(1\)/, 'the hint is there, escaped');
    assert.match(page.text, /<html lang="(de|en)" dir="ltr">/);
  });

  it('a login name echoed after a failed attempt, a user name on the account selection page and registration errors are escaped', async () => {
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin(params());
    const failed = await client.post(`/ui/login/${uid}/login`, { csrf, loginName: XSS, password: 'x' });
    assert.equal(failed.status, 401);
    noMarkup(failed.text, 'echoed login name');

    // A user whose name is markup, remembered by the browser and offered on the selection page.
    const userName = `<svg onload=alert(4)>${Date.now()}`;
    const created = await svc.api('POST', `/scim/v2/${project.orgId}/Users`, {
      token: svc.adminToken,
      body: { schemas: [USER], userName, password: 'Correct-Horse-9' },
    });
    assert.ok(created.status === 201 || created.status === 400, created.text);
    if (created.status === 201) {
      const second = await client.startLogin(params());
      const done = await client.post(`/ui/login/${second.uid}/login`, {
        csrf: second.csrf,
        loginName: `${userName}@${project.primaryDomain}`,
        password: 'Correct-Horse-9',
      });
      assert.equal(done.status, 303, done.text.slice(0, 200));
      await client.follow(done);
      const selection = await client.startLogin(params({ prompt: 'select_account' }));
      assert.match(selection.page.text, /data-login-name=/, 'the selection page is shown');
      noMarkup(selection.page.text, 'remembered user name');
    }

    const register = await client.startLogin(params({ prompt: 'create' }));
    const refused = await client.post(`/ui/login/${register.uid}/register`, {
      csrf: register.csrf,
      firstName: XSS,
      lastName: XSS,
      email: XSS,
      userName: XSS,
      password: 'short',
    });
    assert.equal(refused.status, 400);
    noMarkup(refused.text, 'registration error');
  });

  it('CR/LF in state never reaches a header: it is percent-encoded in the redirect', async () => {
    const state = 'x\r\nSet-Cookie: evil=1\r\nX-Injected: yes';
    const res = await new LoginClient(svc.url).get(`/oauth/v2/authorize?${new URLSearchParams(params({ prompt: 'none', state }))}`);
    assert.equal(res.status, 303, res.text.slice(0, 200));
    assert.equal(res.headers.get('x-injected'), null);
    assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('evil')));
    const location = new URL(res.location!);
    assert.equal(location.origin + location.pathname, `${RP}/cb`);
    assert.equal(location.searchParams.get('state'), state, 'the state is returned intact, as data');
    assert.doesNotMatch(res.location!, /[\r\n]/);

    const formPost = await new LoginClient(svc.url).get(
      `/oauth/v2/authorize?${new URLSearchParams(params({ prompt: 'none', response_mode: 'form_post', state: `${state}"><script>alert(1)</script>` }))}`,
    );
    // oidc-provider answers an error by form_post with 400 and the auto-submitting form.
    assert.equal(formPost.status, 400);
    assert.match(formPost.text, /name="state" value="x[^"]*&quot;&gt;&lt;script&gt;alert\(1\)/, 'form_post carries the state, escaped');
    assert.doesNotMatch(formPost.text, /<script>alert/);
  });
});
