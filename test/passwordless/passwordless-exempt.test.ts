import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../faults/faults.helpers.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import { searchEvents, unique, useService } from '../support/fixtures.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';
import { verifiedDomain } from '../federation/support/domains.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../federation/support/upstream-idp.js';

/**
 * docs/passwordless.md, "Federated and directory people are not affected": in an organization whose login policy says
 * `passwordless: "required"`, a person of the organization's identity provider (the reference oidc-provider upstream)
 * signs in in Chromium through the provider, by its button or by typing the company address, as before; a person a
 * directory (slapd) keeps gets a password set through the directory, where a local person of the same organization
 * gets 409.
 */
describe('passkeys only: federated and directory people are not affected', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let rp: RelyingParty;
  let upstream: UpstreamIdp;
  let slapd: Slapd;
  let app: OidcApp;
  let orgId: string;
  let idpId: string;
  let bobId: string;

  before(async () => {
    [browser, rp, upstream, slapd] = await Promise.all([
      launchBrowser(),
      startRelyingParty(),
      startUpstreamIdp({ 'bob-sub': { oid: 'entra-oid-bob', preferred_username: 'bob@contoso.example' } }),
      startSlapd(personLdif('dora', { givenName: 'Dora', sn: 'Directory', password: 'Dora-LDAP-pw-1' })),
    ]);
    const tenant = await scimTenant(svc);
    orgId = tenant.orgId;
    await verifiedDomain(svc, orgId, 'contoso.example');
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }, rp.url);
    const policy = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'off', passkeys: true, allowRegistration: false, passwordless: 'required' },
    });
    assert.equal(policy.status, 200, policy.text);

    const idp = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: svc.adminToken,
      body: {
        type: 'oidc',
        name: 'Contoso',
        issuer: upstream.issuer,
        clientId: 'rp-contoso',
        clientSecret: 'browser-secret-1',
        link: { by: 'externalId', from: 'oid' },
        domains: ['contoso.example'],
      },
    });
    assert.equal(idp.status, 201, idp.text);
    idpId = idp.body.id;
    upstream.addClient({ client_id: 'rp-contoso', client_secret: 'browser-secret-1', redirect_uris: [idp.body.callbackUrl] });
    const provisioned = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: 'entra-oid-bob',
        userName: 'bob@contoso.example',
        active: true,
        name: { givenName: 'Bob', familyName: 'Builder' },
        emails: [{ primary: true, type: 'work', value: 'bob@contoso.example' }],
      },
    });
    assert.equal(provisioned.status, 201, provisioned.text);
    bobId = provisioned.body.id;
  });

  after(async () => {
    await Promise.all([browser?.close(), rp?.close(), upstream?.close(), slapd?.stop()]);
  });

  const signIn = async (steps: (p: Page) => Promise<void>) => {
    const { context, page } = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const url = `${svc.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: 'rp', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`;
      const cb = await authorize(rp, page, url, steps);
      const code = callbackParams(cb).get('code');
      assert.ok(code, `a code at the application: ${cb.url}`);
      const res = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: verifier },
        { id: app.clientId, secret: app.clientSecret! },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return JSON.parse(Buffer.from(String(res.body.id_token).split('.')[1], 'base64url').toString()) as { sub: string; amr: string[] };
    } finally {
      await context.close();
    }
  };
  const signInUpstream = async (p: Page) => {
    await p.locator('[data-upstream-account]').fill('bob-sub');
    await p.locator('[data-upstream-submit]').click();
  };

  it('a person of the identity provider signs in through it, by its button or by the company address, as before', async () => {
    const byButton = await signIn(async (p) => {
      // The passkeys-only page: no password field, the provider's button as on any sign-in page.
      await p.locator('[data-passkey-recovery]').waitFor();
      assert.equal(await p.locator('input[type="password"]').count(), 0);
      await p.locator(`[data-idp="${idpId}"]`).click();
      await signInUpstream(p);
    });
    assert.equal(byButton.sub, bobId);
    assert.deepEqual(byButton.amr, ['fed']);

    const byAddress = await signIn(async (p) => {
      await p.fill('input[name="loginName"]', 'bob@contoso.example');
      await p.click('button[type="submit"]');
      await p.locator('[data-upstream-account]').waitFor();
      assert.equal(new URL(p.url()).origin, upstream.issuer, 'home-realm discovery leads to the provider’s own page');
      await signInUpstream(p);
    });
    assert.equal(byAddress.sub, bobId);

    // Linked to the provider now, the person is the provider's: the 409 of passkeys only does not apply.
    const set = await svc.api('PUT', `/management/v1/orgs/${orgId}/users/${bobId}/password`, { token: svc.adminToken, body: { password: 'Federated-pw-1x' } });
    assert.equal(set.status, 200, set.text);
  });

  it('a person the directory keeps gets a password set through the directory; a local person of the organization gets 409', async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/directory-hosts', { token: svc.adminToken, body: { allow: ['127.0.0.1'] } })).status, 200);
    const directories = `/management/v1/orgs/${orgId}/directories`;
    const created = await svc.api('POST', directories, {
      token: svc.adminToken,
      body: {
        name: 'slapd',
        url: slapd.url,
        bindDn: slapd.serviceDn,
        bindPassword: slapd.servicePassword,
        usersDn: `ou=people,${SUFFIX}`,
        writeBack: true,
        sync: { intervalMinutes: 0 },
      },
    });
    assert.equal(created.status, 201, created.text);
    const started = await svc.api('POST', `${directories}/${created.body.id}/sync`, { token: svc.adminToken, body: {} });
    assert.equal(started.status, 202, started.text);
    await eventually('the first sync', async () => {
      const res = await svc.api('GET', `${directories}/${created.body.id}/syncs/${started.body.syncId}`, { token: svc.adminToken });
      return res.body.state === 'finished' ? res.body : undefined;
    });
    const dora = (await svc.api('GET', `/management/v1/orgs/${orgId}/users?query=dora`, { token: svc.adminToken })).body.users[0];
    assert.ok(dora, 'the sync brought the directory person');

    const set = await svc.api('PUT', `/management/v1/orgs/${orgId}/users/${dora.userId}/password`, {
      token: svc.adminToken,
      body: { password: 'Dora-new-pw-22' },
    });
    assert.equal(set.status, 200, set.text);
    assert.ok(slapd.binds(`uid=dora,ou=people,${SUFFIX}`, 'Dora-new-pw-22'), 'the directory took the new password');
    const [changed] = await searchEvents(svc, { aggregate_id: dora.userId, event_types: ['user.human.password.changed'] });
    assert.equal(changed.payload.source, 'directory');

    const userName = unique('lena');
    const local = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Lena', lastName: 'Local' }, email: { email: `${userName}@example.com` } },
    });
    assert.equal(local.status, 201, local.text);
    const refused = await svc.api('PUT', `/management/v1/orgs/${orgId}/users/${local.body.userId}/password`, {
      token: svc.adminToken,
      body: { password: 'Local-new-pw-22' },
    });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.text, /passkeys only/);

    // In Chromium: the passkeys-only page has no password field, and a door of the directory's own, the same for any
    // name; through it the directory's person signs in with the directory's password.
    const loginName = `dora@${(await svc.api('GET', `/admin/v1/orgs/${orgId}`, { token: svc.adminToken })).body.primaryDomain}`;
    const claims = await signIn(async (p) => {
      await p.locator('[data-passkey-recovery]').waitFor();
      assert.equal(await p.locator('input[type="password"]').count(), 0, 'no password field on the passkeys-only page');
      await p.getByRole('link', { name: 'Sign in with slapd' }).click();
      await p.fill('input[name="loginName"]', loginName);
      await p.fill('input[type="password"]', 'Dora-new-pw-22');
      await p.click('button[type="submit"]');
    });
    assert.equal(claims.sub, dora.userId);
    assert.deepEqual(claims.amr, ['pwd']);

    // A local person with a password from before the policy (set here in the database, as an older instance left it)
    // gets the ordinary refusal at that door: it checks only what a directory keeps.
    const hash = (await svc.dataSource.query('SELECT password_hash AS h FROM users WHERE id = ?', [bobId]))[0].h;
    await svc.dataSource.query('UPDATE users SET password_hash = ? WHERE id = ?', [hash, local.body.userId]);
    const { context, page } = await newPage(browser);
    try {
      await page.goto(
        `${svc.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: 'rp', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
      );
      await page.getByRole('link', { name: 'Sign in with slapd' }).click();
      await page.fill('input[name="loginName"]', `${userName}@${loginName.split('@')[1]}`);
      await page.fill('input[type="password"]', 'Federated-pw-1x');
      const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type="submit"]')]);
      assert.equal(answer.status(), 401, 'the answer of a wrong password');
      assert.equal(await page.locator('input[type="password"]').count(), 1, 'still the directory door');
    } finally {
      await context.close();
    }
    assert.equal((await searchEvents(svc, { aggregate_id: local.body.userId, event_types: ['user.human.password.check.succeeded'] })).length, 0);
  });
});
