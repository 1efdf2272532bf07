import assert from 'node:assert/strict';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, searchEvents, unique, useService } from '../support/fixtures.js';
import * as oidc from 'openid-client';
import { createOidcApp, createProject, discover } from '../oidc/support/oidc-fixtures.js';
import { DeviceUser, deviceApp, deviceErrorOf, poll } from '../oidc/support/device-user.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import { verifiedDomain } from './support/domains.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

const SECRET = 'upstream-client-secret-7d2e';
const ACR_MFA = 'urn:portcullis:acr:mfa';

/**
 * docs/federation.md, "Signing in", over HTTP, as a browser walks it: an organization's users sign in through its upstream OpenID
 * Provider (the reference oidc-provider, started here on a free port): linked to the account Entra ID
 * provisioned by SCIM (`externalId` = the token's `oid`), created just in time, refused when there is no account.
 */
describe('federated sign-in through an upstream OpenID Provider', () => {
  // A short upstream timeout, for the test of an upstream that never answers (generous for a loaded CI machine).
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', IDP_TIMEOUT_MS: '3000' });
  let upstream: UpstreamIdp;
  let tenant: ScimTenant;
  let app: OidcApp;
  let owner: { userId: string; token: string };
  const idp: Record<string, string> = {};

  const addIdp = async (key: string, settings: Record<string, unknown>) => {
    const res = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: { type: 'oidc', name: `Contoso ${key}`, issuer: upstream.issuer, clientId: `portcullis-${key}`, clientSecret: SECRET, ...settings },
    });
    assert.equal(res.status, 201, res.text);
    idp[key] = res.body.id;
    upstream.addClient({ client_id: `portcullis-${key}`, client_secret: SECRET, redirect_uris: [res.body.callbackUrl] });
  };

  before(async () => {
    upstream = await startUpstreamIdp({
      'alice-sub': {
        oid: 'entra-oid-alice',
        preferred_username: 'alice@contoso.example',
        given_name: 'Alice',
        family_name: 'Liddell',
        email: 'alice@contoso.example',
        email_verified: true,
      },
      'jit-sub': {
        oid: 'entra-oid-jit',
        preferred_username: unique('jit.person'),
        given_name: 'Jit',
        family_name: 'Person',
        email: 'jit@contoso.example',
        email_verified: true,
      },
      'stranger-sub': { oid: 'entra-oid-nobody', preferred_username: 'nobody@contoso.example', email: 'nobody@contoso.example', email_verified: true },
      'owner-sub': { oid: 'entra-oid-owner', preferred_username: 'owner@contoso.example' },
      'twin-sub': { oid: 'entra-oid-twin' },
      'erin-sub': { email: 'erin@contoso.example', email_verified: false },
      'frank-sub': { email: 'frank@contoso.example', email_verified: true },
      'grace-sub': { email: 'grace@contoso.example', email_verified: true },
      'jit2-sub': { preferred_username: unique('jit.tested'), email: 'jit2@contoso.example', email_verified: true },
      'newcomer-sub': { preferred_username: unique('newcomer'), email: 'newcomer@contoso.example', email_verified: true },
    });
    tenant = await scimTenant(svc);
    owner = await createCaller(svc, tenant.orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' });
    await addIdp('link', { link: { by: 'externalId', from: 'oid' }, domains: [await verifiedDomain(svc, tenant.orgId, 'contoso.example')] });
    await addIdp('jit', { jit: true });
    await addIdp('mfa', { link: { by: 'externalId', from: 'oid' }, mfa: 'upstream' });
    await addIdp('email', { link: { by: 'email', from: 'email' } });
    await addIdp('emailJit', { link: { by: 'email', from: 'email' }, jit: true });
  });

  after(() => upstream?.close());

  /** The request Entra ID's provisioning service sends for a new user (Microsoft's SCIM docs), `externalId` its object id. */
  const provisionByEntra = async (oid: string, userName: string) => {
    const res = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: oid,
        userName,
        active: true,
        displayName: 'Alice Liddell',
        emails: [{ primary: true, type: 'work', value: userName }],
        name: { formatted: 'Alice Liddell', familyName: 'Liddell', givenName: 'Alice' },
        [ENTERPRISE]: { employeeNumber: '1001', department: 'Research' },
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };

  it('links the user Entra ID provisioned by SCIM through externalId = oid, signs them in with amr fed, and reuses the link', async () => {
    const userId = await provisionByEntra('entra-oid-alice', 'alice@contoso.example');
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const login = await browser.authorize(app);
    assert.equal(login.status, 200);
    const done = await browser.signInUpstream(await browser.choose(login, idp.link), 'alice-sub');
    const claims = await browser.tokens(app, done);
    assert.equal(claims.sub, userId);
    assert.deepEqual(claims.amr, ['fed']);

    const identities = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${userId}/identities`, { token: owner.token });
    assert.equal(identities.status, 200, identities.text);
    assert.deepEqual(
      identities.body.identities.map((i: { idpId: string; subject: string }) => [i.idpId, i.subject]),
      [[idp.link, 'alice-sub']],
    );
    assert.ok(identities.body.identities[0].lastUsedAt, 'the sign-in is recorded on the link');
    const [linked] = await searchEvents(svc, { event_types: ['user.idp.link.added'], aggregate_id: userId });
    assert.deepEqual(linked.payload, { idpId: idp.link, subject: 'alice-sub' });
    assert.equal(linked.editor.userId, null);

    // Again, in a new browser: the link is used, no second link is made.
    const again = new FederatedBrowser(svc, upstream.issuer);
    const second = await again.tokens(app, await again.signInUpstream(await again.choose(await again.authorize(app), idp.link), 'alice-sub'));
    assert.equal(second.sub, userId);
    assert.equal((await searchEvents(svc, { event_types: ['user.idp.link.added'], aggregate_id: userId })).length, 1);
    const succeeded = await searchEvents(svc, { event_types: ['user.idp.login.succeeded'], aggregate_id: userId });
    assert.equal(succeeded.length, 2);
    assert.deepEqual(succeeded[0].payload, { idpId: idp.link });
  });

  it('home-realm discovery: a login name of the IdP’s domain goes upstream with no password read, login_hint passed on', async () => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const login = await browser.authorize(app);
    assert.doesNotMatch(login.text, /id="password"[^>]*required/, 'with a discovering IdP the password is not required by the form');
    const typed = await browser.typeLoginName(login, 'alice@Contoso.example');
    assert.equal(typed.status, 303);
    const target = new URL(typed.location!);
    assert.equal(target.origin, upstream.issuer);
    assert.equal(target.searchParams.get('login_hint'), 'alice@Contoso.example');
    assert.equal(target.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(target.searchParams.get('nonce') && target.searchParams.get('state'));
    assert.match(target.searchParams.get('redirect_uri')!, new RegExp(`/ui/login/idp/${idp.link}/callback$`));
    const claims = await browser.tokens(app, await browser.signInUpstream(typed, 'alice-sub'));
    assert.deepEqual(claims.amr, ['fed']);
  });

  it('idp_hint skips the login page and goes straight to that IdP; an unknown hint shows the login page', async () => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const hinted = await browser.authorize(app, { idp_hint: idp.link });
    assert.equal(hinted.status, 303);
    assert.equal(new URL(hinted.location!).origin, upstream.issuer);
    const unknown = await new FederatedBrowser(svc, upstream.issuer).authorize(app, { idp_hint: 'no-such-idp' });
    assert.equal(unknown.status, 200);
    assert.match(unknown.text, /name="loginName"/);
  });

  it('JIT creates the user from the mapped claims (event source idp); a second identity with the same user name is refused, nothing created', async () => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const claims = await browser.tokens(app, await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.jit), 'jit-sub'));
    const user = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${claims.sub}`, { token: owner.token });
    assert.equal(user.status, 200, user.text);
    assert.equal(user.body.userName, upstream.accounts['jit-sub'].preferred_username);
    const [added] = await searchEvents(svc, { event_types: ['user.human.added'], aggregate_id: String(claims.sub) });
    assert.equal(added.payload.source, 'idp');
    assert.equal(added.payload.idpId, idp.jit);

    upstream.accounts['jit-clash-sub'] = { ...upstream.accounts['jit-sub'] };
    const users = await countRows(svc, 'users');
    const clash = new FederatedBrowser(svc, upstream.issuer);
    const refused = await clash.signInUpstream(await clash.choose(await clash.authorize(app), idp.jit), 'jit-clash-sub');
    assert.equal(refused.status, 403, refused.text.slice(0, 300));
    assert.match(refused.text, /data-error="no_account"/);
    assert.equal(await countRows(svc, 'users'), users);
  });

  it('no account: no link, no rule match and no JIT is a page and a user.idp.login.failed event; nothing is created', async () => {
    const users = await countRows(svc, 'users');
    const links = await countRows(svc, 'user_identities');
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.link), 'stranger-sub');
    assert.equal(page.status, 403);
    assert.match(page.text, /data-error="no_account"/);
    assert.equal(await countRows(svc, 'users'), users);
    assert.equal(await countRows(svc, 'user_identities'), links);
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.link });
    assert.ok(failed.some((e) => e.payload.reason === 'no_account' && e.payload.idpId === idp.link));
    assert.ok(
      failed.every((e) => !JSON.stringify(e.payload).includes('eyJ')),
      'no token in the event',
    );
  });

  it('no account in a device flow: the device hears access_denied at its next poll (RFC 8628 §3.5), as after a password sign-in', async () => {
    const tv = await deviceApp(svc, await createProject(svc, tenant.orgId));
    const started = await oidc.initiateDeviceAuthorization(await discover(svc, tv.clientId, oidc.None()), { scope: 'openid' });
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const person = new DeviceUser(browser.service);
    const toLogin = await person.press(await person.enter(started.user_code), 'confirm');
    const { uid, page } = await person.loginPage(toLogin.location!);
    browser.uid = uid;
    const refused = await browser.signInUpstream(await browser.choose(page, idp.link), 'stranger-sub');

    const answer = await poll(svc, tv, started.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(answer.body.access_token, undefined);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /data-device-denied/);
    assert.equal(deviceErrorOf(await DeviceUser.of(svc).enter(started.user_code)), 'denied', 'the code is spent');
  });

  it('never links automatically a user who holds a role', async () => {
    const userId = await provisionByEntra('entra-oid-owner', 'owner@contoso.example');
    const grant = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/members/${userId}`, { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } });
    assert.equal(grant.status, 200, grant.text);
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.link), 'owner-sub');
    assert.equal(page.status, 403);
    const identities = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${userId}/identities`, { token: svc.adminToken });
    assert.deepEqual(identities.body.identities, []);
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.link });
    assert.ok(failed.some((e) => e.payload.reason === 'holds_role'));
  });

  it('a deactivated user is refused whatever the upstream says', async () => {
    const userId = await provisionByEntra('entra-oid-dora', `dora@contoso.example`);
    upstream.accounts['dora-sub'] = { oid: 'entra-oid-dora' };
    const patched = await tenant.scim('PATCH', `/Users/${userId}`, {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] },
    });
    assert.ok(patched.status === 200 || patched.status === 204, patched.text);
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.link), 'dora-sub');
    assert.equal(page.status, 403);
    assert.match(page.text, /data-error="access_denied"/);
  });

  it('upstream MFA counts as the second factor only on an IdP with mfa: upstream (policy required)', async () => {
    const org = tenant.orgId;
    const policy = await svc.api('PUT', `/management/v1/orgs/${org}/login-policy`, {
      token: owner.token,
      body: { mfa: 'required', passkeys: true, allowRegistration: false },
    });
    assert.equal(policy.status, 200, policy.text);
    try {
      const withMfa = new FederatedBrowser(svc, upstream.issuer);
      const claims = await withMfa.tokens(
        app,
        await withMfa.signInUpstream(await withMfa.choose(await withMfa.authorize(app), idp.mfa), 'alice-sub', { mfa: true }),
      );
      assert.equal(claims.acr, ACR_MFA);
      assert.deepEqual([...(claims.amr as string[])].sort(), ['fed', 'mfa', 'otp', 'pwd']);

      // The same upstream MFA through the IdP trusted for nothing: the local second factor is required.
      const local = new FederatedBrowser(svc, upstream.issuer);
      const page = await local.signInUpstream(await local.choose(await local.authorize(app), idp.link), 'alice-sub', { mfa: true, declineMfaOffer: false });
      assert.equal(page.status, 200);
      assert.match(page.text, /enrol\/totp/, 'the enrolment of a local second factor is required');
      assert.doesNotMatch(page.text, /data-mfa-skip/);
    } finally {
      await svc.api('PUT', `/management/v1/orgs/${org}/login-policy`, {
        token: owner.token,
        body: { mfa: 'optional', passkeys: true, allowRegistration: false },
      });
    }
  });

  it('passwordLogin: false makes the organization federated only: no password field, a posted password is refused', async () => {
    const org = tenant.orgId;
    const policy = await svc.api('PUT', `/management/v1/orgs/${org}/login-policy`, {
      token: owner.token,
      body: { mfa: 'optional', passkeys: true, allowRegistration: false, passwordLogin: false },
    });
    assert.equal(policy.status, 200, policy.text);
    assert.equal(policy.body.passwordLogin, false);
    try {
      const browser = new FederatedBrowser(svc, upstream.issuer);
      const login = await browser.authorize(app);
      assert.doesNotMatch(login.text, /name="password"/);
      assert.match(login.text, new RegExp(`data-idp="${idp.jit}"`));
      const posted = await browser.typeLoginName(login, 'someone-local', 'Correct-Horse-9');
      assert.equal(posted.status, 403);
    } finally {
      await svc.api('PUT', `/management/v1/orgs/${org}/login-policy`, {
        token: owner.token,
        body: { mfa: 'optional', passkeys: true, allowRegistration: false },
      });
    }
  });

  it('refuses a replayed callback, a callback for another IdP, and a continuation in another browser (login CSRF)', async () => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const toUpstream = await browser.choose(await browser.authorize(app), idp.link);
    let page = await browser.walk(toUpstream);
    const uid = /\/interaction\/([^/?"]+)/.exec(page.text)![1];
    page = await browser.upstream.post(`/interaction/${uid}/login`, { account: 'alice-sub' });
    // Walk the upstream's redirects up to the service's callback, and keep that URL.
    while (page.location && new URL(page.location).origin === upstream.issuer)
      page = await browser.upstream.get(new URL(page.location).pathname + new URL(page.location).search);
    const callback = new URL(page.location!);
    assert.equal(callback.pathname, `/ui/login/idp/${idp.link}/callback`);

    const otherIdp = await browser.service.get(`/ui/login/idp/${idp.jit}/callback${callback.search}`);
    assert.equal(otherIdp.status, 400, 'the state of one IdP is nothing at another (mix-up)');

    const attacker = new FederatedBrowser(svc, upstream.issuer);
    const answered = await attacker.service.get(callback.pathname + callback.search);
    assert.equal(answered.status, 303);
    // The continue step is the interaction's own path, where its cookie is sent (docs/federation.md, "The round trip").
    assert.match(answered.location!, new RegExp(`^/ui/login/${browser.uid}/idp/continue\\?trip=`));
    const stolen = await attacker.service.get(answered.location!);
    assert.notEqual(stolen.status, 303, 'no interaction cookie of that sign-in: it does not go on');
    const replay = await browser.service.get(callback.pathname + callback.search);
    assert.equal(replay.status, 400, 'the round trip was answered once');
  });

  it('an upstream error and an unreachable upstream are pages and events; nothing is created', async () => {
    const users = await countRows(svc, 'users');
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const denied = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.jit), 'no-such-account');
    assert.equal(denied.status, 502);
    assert.match(denied.text, /data-error="access_denied"/);

    const down = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: { type: 'oidc', name: 'Down', issuer: 'http://localhost:9/', clientId: 'x', clientSecret: SECRET },
    });
    assert.equal(down.status, 201, down.text);
    const unreachable = await browser.choose(await browser.authorize(app), down.body.id);
    assert.equal(unreachable.status, 502);
    assert.equal(await countRows(svc, 'users'), users);
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: down.body.id });
    assert.deepEqual(
      failed.map((e) => e.payload.reason),
      ['upstream_error'],
    );
  });

  const refusedWith = async (key: string, account: string, reason: string) => {
    const links = await countRows(svc, 'user_identities');
    const seen = new Set((await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp[key] })).map((e) => e.sequence));
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp[key]), account);
    assert.equal(page.status, 403, `${account}: ${page.status}`);
    assert.equal(await countRows(svc, 'user_identities'), links, `${account}: nothing linked`);
    const added = (await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp[key] })).filter((e) => !seen.has(e.sequence));
    assert.deepEqual(
      added.map((e) => e.payload.reason),
      [reason],
      account,
    );
  };

  it('claims that would link to two users link to none', async () => {
    await provisionByEntra('entra-oid-twin', 'twin.one@contoso.example');
    await provisionByEntra('entra-oid-twin', 'twin.two@contoso.example');
    await refusedWith('link', 'twin-sub', 'ambiguous');
  });

  it('e-mail links need the upstream’s email_verified and a verified local address', async () => {
    const human = async (email: string, verified: boolean) => {
      const res = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
        token: svc.adminToken,
        body: { userName: unique('mail'), profile: { firstName: 'E', lastName: 'Mail' }, email: { email, isEmailVerified: verified } },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.userId as string;
    };
    await human('erin@contoso.example', true);
    await refusedWith('email', 'erin-sub', 'unverified_email');
    // An unverified local address is no link candidate: nothing matches, and without JIT there is no account.
    await human('frank@contoso.example', false);
    await refusedWith('email', 'frank-sub', 'no_account');
    const graceId = await human('grace@contoso.example', true);
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const claims = await browser.tokens(app, await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.email), 'grace-sub'));
    assert.equal(claims.sub, graceId, 'verified on both sides: linked');
  });

  it('a colleague’s unverified copy of an address blocks nobody: the newcomer is created just in time', async () => {
    const squatter = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: unique('squatter'),
        profile: { firstName: 'S', lastName: 'Quatter' },
        email: { email: 'Newcomer@contoso.example', isEmailVerified: false },
      },
    });
    assert.equal(squatter.status, 201, squatter.text);
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.emailJit), 'newcomer-sub');
    assert.notEqual(page.status, 403, page.text.slice(0, 400));
    const claims = await browser.tokens(app, page);
    assert.notEqual(claims.sub, squatter.body.userId, 'never linked to the unverified holder');
    const created = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${claims.sub}`, { token: svc.adminToken });
    assert.equal(created.body.userName, upstream.accounts['newcomer-sub'].preferred_username);
    assert.deepEqual(
      created.body.email,
      { email: 'newcomer@contoso.example', isEmailVerified: true },
      'the upstream verified it; no one here holds it verified',
    );
    const kept = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${squatter.body.userId}/identities`, { token: svc.adminToken });
    assert.deepEqual(kept.body.identities, [], 'the squatter gained no identity');
  });

  it('the refusal page names the reason: a JIT user name that is taken', async () => {
    const taken = unique('taken.name');
    const holder = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName: taken, profile: { firstName: 'T', lastName: 'Aken' }, email: { email: `${taken}@example.com`, isEmailVerified: true } },
    });
    assert.equal(holder.status, 201, holder.text);
    upstream.accounts['taken-sub'] = { preferred_username: taken, email: `${unique('other')}@contoso.example`, email_verified: true };
    const users = await countRows(svc, 'users');
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const page = await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.jit), 'taken-sub');
    assert.equal(page.status, 403);
    assert.match(page.text, /data-error="no_account"/);
    assert.match(page.text, /user name[^<]*already taken/i, 'the page says why, not only that there is no account');
    assert.equal(await countRows(svc, 'users'), users, 'nothing created');
  });

  it('JIT: an upstream-verified address that another user of the organization holds verified arrives unverified', async () => {
    const address = `${unique('held')}@contoso.example`;
    const holder = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName: unique('holder'), profile: { firstName: 'H', lastName: 'Older' }, email: { email: address, isEmailVerified: true } },
    });
    assert.equal(holder.status, 201, holder.text);
    upstream.accounts['held-sub'] = { preferred_username: unique('jit.held'), email: address.toUpperCase(), email_verified: true };
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const claims = await browser.tokens(app, await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.jit), 'held-sub'));
    assert.notEqual(claims.sub, holder.body.userId, 'a user of its own');
    const created = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${claims.sub}`, { token: svc.adminToken });
    assert.deepEqual(created.body.email, { email: address.toUpperCase(), isEmailVerified: false }, 'the address arrives, unverified');
  });

  it('an upstream that never answers ends at IDP_TIMEOUT_MS with a page and an event', async () => {
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const res = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
        token: owner.token,
        body: { type: 'oidc', name: 'Silent', issuer: `http://localhost:${(silent.address() as AddressInfo).port}`, clientId: 'x', clientSecret: SECRET },
      });
      assert.equal(res.status, 201, res.text);
      const browser = new FederatedBrowser(svc, upstream.issuer);
      const login = await browser.authorize(app);
      const started = Date.now();
      const page = await browser.choose(login, res.body.id);
      assert.equal(page.status, 502);
      assert.ok(Date.now() - started < 15_000, 'bounded by the timeout, not by the client');
      const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: res.body.id });
      assert.deepEqual(
        failed.map((e) => e.payload.reason),
        ['upstream_error'],
      );
    } finally {
      silent.close();
    }
  });

  it('a test sign-in shows who the upstream says signed in and what a sign-in would do, changing nothing', async () => {
    const manager = await createCaller(svc, tenant.orgId, { org: ['ORG_USER_MANAGER'] });
    const users = await countRows(svc, 'users');
    const links = await countRows(svc, 'user_identities');
    assert.equal((await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps/${idp.link}/test`, { token: manager.token })).status, 403);
    const test = async (key: string, account: string) => {
      const started = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps/${idp[key]}/test`, { token: owner.token });
      assert.equal(started.status, 201, started.text);
      assert.equal(new URL(started.body.url).origin, upstream.issuer);
      // The operator opens the link: a browser with no session of the service.
      const browser = new FederatedBrowser(svc, upstream.issuer);
      return browser.signInUpstream({ status: 303, location: started.body.url, text: '', headers: new Headers() }, account);
    };
    const linked = await test('link', 'alice-sub');
    assert.equal(linked.status, 200, linked.text.slice(0, 300));
    assert.match(linked.text, /data-outcome="linked"/);
    assert.match(linked.text, /alice@contoso\.example/);
    const created = await test('jit', 'jit2-sub');
    assert.match(created.text, /data-outcome="create"/);
    assert.match(created.text, new RegExp(upstream.accounts['jit2-sub'].preferred_username as string));
    const refused = await test('link', 'stranger-sub');
    assert.match(refused.text, /data-outcome="refused"[\s\S]*no_account/);
    assert.equal(await countRows(svc, 'users'), users, 'nothing created');
    assert.equal(await countRows(svc, 'user_identities'), links, 'nothing linked');
    const [event] = await searchEvents(svc, { event_types: ['org.idp.tested'], aggregate_id: idp.jit });
    assert.equal(event.editor.userId, owner.userId);
  });
});
