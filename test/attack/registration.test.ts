import assert from 'node:assert/strict';
import { openRegistration } from '../support/registration.js';
import { before, describe, it } from 'node:test';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { countRows, createCaller, searchEvents, useService } from '../support/fixtures.js';
import { authorizeParams } from '../oidc/support/authorize-params.js';
import { LoginClient, csrfOf } from './support/login-client.js';

const RP = 'http://127.0.0.1:65530';
const ADMIN_PASSWORD = 'Registration-Admin-1';

/**
 * Self-registration (SECURITY.md, "Nothing reveals whether a login name exists"): offered only where the
 * organization's login policy allows it, validated like the management API, rate-limited per client IP,
 * and unable to make the bootstrap admin's bare login name ambiguous.
 */
describe('registration and the login policy', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD, LOGIN_RATE_LIMIT_PER_IP: '12' });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;

  before(async () => {
    await openRegistration(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  const policyPath = () => `/management/v1/orgs/${project.orgId}/login-policy`;
  const params = (extra: Record<string, string> = {}) => authorizeParams(app.clientId, extra);

  async function registerForm() {
    const client = new LoginClient(svc.url);
    const { uid } = await client.startLogin(params());
    const page = await client.get(`/ui/login/${uid}?form=register`);
    return { client, uid, page, csrf: csrfOf(page.text) };
  }
  const fields = (userName: string, extra: Record<string, string> = {}) => ({
    userName,
    firstName: 'Reg',
    lastName: 'Istrant',
    email: `${userName.slice(0, 30).replace(/[^a-z0-9]/gi, 'x')}@example.com`,
    password: 'Registered-Pass-1',
    ...extra,
  });

  it('the login policy answers its defaults, is changed by an ORG_OWNER only, and refuses bad bodies', async () => {
    const read = await svc.api('GET', policyPath(), { token: svc.adminToken });
    assert.deepEqual(read.body, {
      mfa: 'optional',
      passkeys: true,
      allowRegistration: true,
      passwordLogin: true,
      inviteOnProvision: false,
      requireVerifiedEmail: false,
      agentClients: 'off',
      agentClientHosts: [],
      dynamicRegistration: 'off',
      passwordless: 'off',
    });
    const manager = await createCaller(svc, project.orgId, { org: ['ORG_USER_MANAGER'] });
    const owner = await createCaller(svc, project.orgId, { org: ['ORG_OWNER'] });
    const body = { mfa: 'optional', passkeys: true, allowRegistration: true };
    assert.equal((await svc.api('PUT', policyPath(), { token: manager.token, body: { ...body, allowRegistration: false } })).status, 403);
    for (const bad of [{ ...body, mfa: 'sometimes' }, { ...body, extra: 1 }, { mfa: 'off' }]) {
      const res = await svc.api('PUT', policyPath(), { token: owner.token, body: bad });
      assert.equal(res.status, 400, res.text);
    }
    assert.deepEqual(
      (await svc.api('GET', policyPath(), { token: owner.token })).body,
      {
        ...body,
        passwordLogin: true,
        inviteOnProvision: false,
        requireVerifiedEmail: false,
        agentClients: 'off',
        agentClientHosts: [],
        dynamicRegistration: 'off',
        passwordless: 'off',
      },
      'nothing changed',
    );
    assert.equal((await svc.api('GET', '/management/v1/orgs/no-such-org/login-policy', { token: svc.adminToken })).status, 404);
    const set = await svc.api('PUT', policyPath(), { token: owner.token, body: { ...body, mfa: 'off' } });
    // A client written before `passwordLogin` and `inviteOnProvision` existed (docs/federation.md, docs/mail.md) keeps passwords
    // and sends no invitations: PUT without them means their defaults.
    assert.deepEqual(set.body, {
      ...body,
      mfa: 'off',
      passwordLogin: true,
      inviteOnProvision: false,
      requireVerifiedEmail: false,
      agentClients: 'off',
      agentClientHosts: [],
      dynamicRegistration: 'off',
      passwordless: 'off',
    });
    const events = await searchEvents(svc, { event_types: ['org.login.policy.changed'], aggregate_id: project.orgId });
    assert.equal(events.length, 1);
    assert.equal(events[0].editor.userId, owner.userId);
  });

  it('refuses what the management API refuses, and markup, line breaks, very long and full-width names; nothing is created', async () => {
    const before = await countRows(svc, 'users');
    const cases: Record<string, string>[] = [
      fields(''),
      fields('no-mail', { email: 'not-an-address' }),
      fields('crlf', { firstName: 'Eve\r\nSet-Cookie: x' }),
      fields('markup', { lastName: '<script>alert(1)</script>' }),
      fields('long', { firstName: 'x'.repeat(15_000) }),
      fields('ａｄｍｉｎ'),
      fields('short-password', { password: 'short' }),
    ];
    for (const form of cases) {
      const { client, uid, csrf } = await registerForm();
      const res = await client.post(`/ui/login/${uid}/register`, { csrf, ...form });
      assert.equal(res.status, 400, `${JSON.stringify(form).slice(0, 80)}: ${res.status}`);
    }
    assert.equal(await countRows(svc, 'users'), before);
  });

  it('a new user in another organization cannot make the bootstrap admin’s bare login name ambiguous', async () => {
    const { client, uid, csrf } = await registerForm();
    const res = await client.post(`/ui/login/${uid}/register`, { csrf, ...fields('ADMIN') });
    assert.equal(res.status, 303, res.text.slice(0, 300));
    const defaultOrg = (await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken })).body.orgs.find((o: { name: string }) => o.name === 'default');
    const defaultApp = await createOidcApp(svc, await createProject(svc, defaultOrg.id), { authMethod: 'client_secret_basic' }, RP);
    const admin = await signIn(svc, {
      clientId: defaultApp.clientId,
      clientSecret: defaultApp.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: 'admin',
      password: ADMIN_PASSWORD,
    });
    assert.ok(admin.tokens, `the bare name still signs the admin in: ${admin.error}`);
  });

  it('is rate-limited per client IP, every attempt counting', async () => {
    let last = 0;
    for (let i = 0; i < 20 && last !== 429; i++) {
      const { client, uid, csrf } = await registerForm();
      last = (await client.post(`/ui/login/${uid}/register`, { csrf, ...fields('') })).status;
    }
    assert.equal(last, 429);
  });

  it('with allowRegistration off: no link, no form, no prompt=create, and a posted form creates nothing', async () => {
    const owner = await createCaller(svc, project.orgId, { org: ['ORG_OWNER'] });
    const { client, uid, csrf } = await registerForm();
    assert.equal((await svc.api('PUT', policyPath(), { token: owner.token, body: { mfa: 'optional', passkeys: true, allowRegistration: false } })).status, 200);
    const before = await countRows(svc, 'users');
    assert.equal((await client.post(`/ui/login/${uid}/register`, { csrf, ...fields('closed-door') })).status, 403);
    assert.equal(await countRows(svc, 'users'), before);
    const fresh = new LoginClient(svc.url);
    const login = await fresh.startLogin(params());
    assert.doesNotMatch(login.page.text, /form=register/, 'no link to the form');
    assert.equal((await fresh.get(`/ui/login/${login.uid}?form=register`)).status, 403);
    const create = new LoginClient(svc.url);
    const redirect = await create.get(`/oauth/v2/authorize?${new URLSearchParams(params({ prompt: 'create' }))}`);
    assert.equal((await create.get(redirect.location!)).status, 403);
  });
});
