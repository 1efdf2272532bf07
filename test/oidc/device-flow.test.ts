import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import type { PageResponse } from '../attack/support/login-client.js';
import { unique, useService } from '../support/fixtures.js';
import { spawnSecondProcess } from '../support/process.js';
import type { TestService } from '../support/service.js';
import { USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import { DEVICE_GRANT, DeviceUser, RP, csrfOf, deviceApp, deviceErrorOf, poll } from './support/device-user.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { ACR_MFA, ACR_PASSWORD, SignInFlow, factorIdOf, setLoginPolicy, totpCode, totpSecretOf } from './support/second-factor.js';

/** The rows of the application's device codes (there is one per device authorization, whatever happens to it). */
async function deviceRows(
  svc: TestService,
  app: OidcApp,
): Promise<{ payload: string; user_code: string | null; last_polled_at: unknown; poll_interval: unknown }[]> {
  return svc.dataSource.query("SELECT payload, user_code, last_polled_at, poll_interval FROM oidc_payloads WHERE model = 'DeviceCode' AND client_id = ?", [
    app.clientId,
  ]);
}

/**
 * Records, through triggers of the test's own, every insert and update of a Session or DeviceCode row in the
 * order the database applied them.
 */
async function recordPayloadWrites(svc: TestService) {
  const mysql = svc.dataSource.options.type === 'mysql';
  const watched = "('Session', 'DeviceCode')";
  const columns = 'model, account_id, payload';
  const values = 'NEW.model, NEW.account_id, NEW.payload';
  await svc.dataSource.query(
    mysql
      ? 'CREATE TABLE test_payload_writes (seq BIGINT AUTO_INCREMENT PRIMARY KEY, model VARCHAR(64), account_id VARCHAR(255), payload LONGTEXT)'
      : 'CREATE TABLE test_payload_writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, model TEXT, account_id TEXT, payload TEXT)',
  );
  for (const event of ['INSERT', 'UPDATE']) {
    const name = `test_payload_${event.toLowerCase()}s`;
    await svc.dataSource.query(
      mysql
        ? `CREATE TRIGGER ${name} AFTER ${event} ON oidc_payloads FOR EACH ROW BEGIN IF NEW.model IN ${watched} THEN INSERT INTO test_payload_writes (${columns}) VALUES (${values}); END IF; END`
        : `CREATE TRIGGER ${name} AFTER ${event} ON oidc_payloads WHEN NEW.model IN ${watched} BEGIN INSERT INTO test_payload_writes (${columns}) VALUES (${values}); END`,
    );
  }
  return {
    read: (): Promise<{ model: string; account_id: string | null; payload: string }[]> =>
      svc.dataSource.query(`SELECT ${columns} FROM test_payload_writes ORDER BY seq`),
    async stop() {
      for (const name of ['test_payload_inserts', 'test_payload_updates']) await svc.dataSource.query(`DROP TRIGGER IF EXISTS ${name}`);
      await svc.dataSource.query('DROP TABLE IF EXISTS test_payload_writes');
    },
  };
}

describe('device authorization grant (RFC 8628) with openid-client 6 and the login UI', () => {
  const svc = useService({ DEVICE_POLL_INTERVAL_SECONDS: '1' });

  async function setUp(mfa?: 'off' | 'optional' | 'required') {
    const project = await createProject(svc);
    if (mfa) await setLoginPolicy(svc, project.orgId, { mfa });
    const app = await deviceApp(svc, project);
    const user = await createHuman(svc, project.orgId);
    const config = await discover(svc, app.clientId, oidc.None());
    return { project, app, user, loginName: `${user.userName}@${project.primaryDomain}`, config };
  }

  it('discovery advertises the endpoint and the grant; the response names the verification URI, a typed code and the interval', async () => {
    const discovery = await svc.api('GET', '/.well-known/openid-configuration');
    assert.equal(discovery.body.device_authorization_endpoint, `${svc.config.publicUrl}/oauth/v2/device_authorization`);
    assert.ok(discovery.body.grant_types_supported.includes(DEVICE_GRANT));
    const { config, app } = await setUp();
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    assert.equal(started.verification_uri, `${svc.config.publicUrl}/ui/login/device`);
    assert.match(started.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(started.verification_uri_complete, `${started.verification_uri}?user_code=${started.user_code}`);
    assert.equal(started.interval, 1);
    assert.equal(started.expires_in, 600);
    // Neither code is stored in the clear (docs/product-rules.md): the row holds their keyed hashes.
    const rows = await deviceRows(svc, app);
    assert.equal(rows.length, 1);
    const stored = JSON.stringify(rows);
    assert.ok(!stored.includes(started.device_code), 'no device code in the clear');
    assert.ok(!stored.includes(started.user_code.replace('-', '')) && !stored.includes(started.user_code), 'no user code in the clear');
    // What the database holds is no device code: the row's key, presented as one (or as the adapter's row handle), finds nothing.
    const [{ id_hash: key }] = await svc.dataSource.query("SELECT id_hash FROM oidc_payloads WHERE model = 'DeviceCode' AND client_id = ?", [app.clientId]);
    for (const presented of [key, `row:${key}`]) assert.equal((await poll(svc, app, presented)).body.error, 'invalid_grant', presented);
  });

  it('a user enters the code, sees the application and its organization, signs in: the device gets tokens with amr and acr, from the one row it polls', async () => {
    const { config, app, project, user, loginName } = await setUp('off');
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const person = DeviceUser.of(svc);
    // Typed in lower case and without the dash: the code is the same.
    const confirmation = await person.enter(started.user_code.toLowerCase().replace('-', ''));
    assert.equal(confirmation.status, 200, confirmation.text);
    const org = await svc.api('GET', `/admin/v1/orgs/${project.orgId}`, { token: svc.adminToken });
    const appName = (await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, { token: svc.adminToken }))
      .body.name;
    assert.ok(confirmation.text.includes(appName), 'the confirmation names the application');
    assert.ok(confirmation.text.includes(org.body.name), 'and its organization');
    assert.match(confirmation.text, /data-device-confirm/);
    assert.match(confirmation.text, /data-device-deny/);
    assert.ok(confirmation.text.includes(started.user_code), 'and shows the code as the device does');
    assert.match(confirmation.headers.get('content-security-policy') ?? '', /form-action 'self'.*frame-ancestors 'none'/);
    assert.equal(confirmation.headers.get('cache-control'), 'no-store');

    const toLogin = await person.press(confirmation, 'confirm');
    const { uid, page } = await person.loginPage(toLogin.location!);
    const done = await person.browser.follow(await person.browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password: PASSWORD }));
    assert.equal(done.status, 200, done.text);
    assert.match(done.text, /data-device-success/);
    assert.ok(done.text.includes(appName));

    const tokens = await polling;
    const claims = tokens.claims()!;
    assert.equal(claims.sub, user.userId);
    assert.deepEqual(claims.amr, ['pwd']);
    assert.equal(claims.acr, ACR_PASSWORD);
    assert.ok(tokens.access_token);
    const info = await oidc.fetchUserInfo(config, tokens.access_token, user.userId);
    assert.equal(info.preferred_username, loginName);
    // The approval updated the row the device polls (the adapter fix): no second row.
    assert.equal((await deviceRows(svc, app)).length, 1);
    // Used once: the user code is "used"; the device code again is invalid_grant, and that reuse revokes the
    // grant and its codes (RFC 6749 §10.5), so the user code is then unknown.
    assert.equal(deviceErrorOf(await DeviceUser.of(svc).enter(started.user_code)), 'used');
    assert.equal((await poll(svc, app, started.device_code)).body.error, 'invalid_grant');
    assert.equal((await deviceRows(svc, app)).length, 0);
  });

  it('the approval is written only after the session that holds its grant: a poll between the two cannot be told invalid_grant', async () => {
    // oidc-provider finds a device code that expires with the browser session only while that session names the
    // code's grant. The database records every write of the two rows in order, so the test sees what a poll in
    // between would have read, without depending on when it polls.
    const { config, user, loginName } = await setUp('off');
    const writes = await recordPayloadWrites(svc);
    try {
      const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
      const person = DeviceUser.of(svc);
      const done = await person.approve(started.user_code, loginName);
      assert.match(done.text, /data-device-success/);
      const log = await writes.read();
      const approval = log.findIndex((w) => w.model === 'DeviceCode' && w.account_id === user.userId);
      assert.ok(approval >= 0, `the approval was written: ${JSON.stringify(log.map((w) => w.model))}`);
      const { grantId } = JSON.parse(log[approval].payload) as { grantId: string };
      const sessionFirst = log.slice(0, approval).some((w) => w.model === 'Session' && w.payload.includes(`"grantId":"${grantId}"`));
      assert.ok(sessionFirst, `a session naming grant ${grantId} was stored before the approval: ${JSON.stringify(log.map((w) => w.model))}`);
      // The request's own save of the session still ran: the browser holds its cookie, and one session row is the user's.
      assert.ok(person.browser.cookies.has('_session'), 'the session cookie was set');
      const sessions = await svc.dataSource.query("SELECT id_hash FROM oidc_payloads WHERE model = 'Session' AND account_id = ?", [user.userId]);
      assert.equal(sessions.length, 1);
      assert.equal((await oidc.pollDeviceAuthorizationGrant(config, started)).claims()!.sub, user.userId);
    } finally {
      await writes.stop();
    }
  });

  it('acr_values=urn:portcullis:acr:mfa in the device authorization request: the sign-in asks the second factor; amr pwd+otp+mfa, acr mfa', async () => {
    const { project, config, loginName } = await setUp('optional');
    // The user enrols TOTP through an application of the code flow.
    const web = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const enrol = new SignInFlow(svc, web, `${RP}/cb`);
    await enrol.authorize();
    const setup = await enrol.post('enrol/totp', await enrol.next(await enrol.password(loginName, PASSWORD)));
    const secret = totpSecretOf(setup);
    await enrol.tokens(await enrol.post('continue', await enrol.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(secret) })));

    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid', acr_values: ACR_MFA });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const person = DeviceUser.of(svc);
    const toLogin = await person.press(await person.enter(started.user_code), 'confirm');
    const { uid, page } = await person.loginPage(toLogin.location!);
    const afterPassword = await person.browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password: PASSWORD });
    const ask = await person.browser.get(afterPassword.location!);
    assert.match(ask.text, /name="code"/, 'the second factor is asked');
    const done = await person.browser.follow(await person.browser.post(`/ui/login/${uid}/code`, { csrf: csrfOf(ask.text), code: totpCode(secret, 1) }));
    assert.match(done.text, /data-device-success/);
    const claims = (await polling).claims()!;
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(claims.acr, ACR_MFA);
  });

  it('denied: the device is told access_denied, the code is spent, nothing is issued; entering it again says it was denied', async () => {
    const { config, app } = await setUp();
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const person = DeviceUser.of(svc, { 'accept-language': 'de-DE,de;q=0.9' });
    const confirmation = await person.enter(started.user_code);
    assert.match(confirmation.text, /Dieses Gerät verbinden\?/, 'German, from Accept-Language');
    const denied = await person.press(confirmation, 'abort');
    assert.equal(denied.status, 200);
    assert.match(denied.text, /data-device-denied/);
    assert.match(denied.text, /Gerät nicht verbunden/);
    const answer = await poll(svc, app, started.device_code);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'access_denied');
    assert.equal(answer.body.access_token, undefined);
    assert.equal(deviceErrorOf(await DeviceUser.of(svc).enter(started.user_code)), 'denied');
    // A device still polling after the denial hears the same (the code is consumed, so invalid_grant at most).
    assert.ok(['access_denied', 'invalid_grant'].includes((await poll(svc, app, started.device_code)).body.error));
  });

  it('a device app with refresh_token and no redirect URI (RFC 8628 §3.5): offline_access brings a refresh token, and openid-client refreshes with it', async () => {
    const project = await createProject(svc);
    const app = await deviceApp(svc, project, [DEVICE_GRANT, 'refresh_token']);
    const user = await createHuman(svc, project.orgId);
    const config = await discover(svc, app.clientId, oidc.None());
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    assert.match((await DeviceUser.of(svc).approve(started.user_code, `${user.userName}@${project.primaryDomain}`)).text, /data-device-success/);
    const tokens = await polling;
    assert.ok(tokens.refresh_token, 'a refresh token with the device grant');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
    assert.ok(refreshed.access_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotated on use');
    assert.equal((await oidc.fetchUserInfo(config, refreshed.access_token, user.userId)).sub, user.userId);
    // Without either grant that issues one, refresh_token still means nothing: refused with the field named.
    const alone = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: { name: 'refresh alone', redirectUris: [], responseTypes: [], grantTypes: ['refresh_token'], authMethod: 'none', devMode: true },
    });
    assert.equal(alone.status, 400, alone.text);
    assert.deepEqual(
      alone.body.details.map((d: { field: string }) => d.field),
      ['grantTypes'],
    );
  });

  it("unknown and malformed codes get a clear page (400) and change nothing; a form without the page's xsrf value is refused", async () => {
    const person = DeviceUser.of(svc);
    for (const typed of ['BCDF-GHJK', 'nonsense', '']) {
      const page = await person.enter(typed);
      assert.equal(page.status, 400, `${JSON.stringify(typed)}: ${page.status}`);
      assert.equal(deviceErrorOf(page), typed === '' ? 'missing' : 'unknown');
      assert.match(page.text, /name="userCode"/, 'the form again');
    }
    // With the page's session but another xsrf value; and without any session (a stale or forged form).
    const forged = await person.browser.post('/ui/login/device', { xsrf: 'forged', userCode: 'BCDF-GHJK' });
    assert.equal(forged.status, 400);
    assert.equal(deviceErrorOf(forged), 'failed');
    const sessionless = await DeviceUser.of(svc).browser.post('/ui/login/device', { xsrf: 'forged', userCode: 'BCDF-GHJK' });
    assert.equal(sessionless.status, 400);
    assert.equal(deviceErrorOf(sessionless), 'failed');
    assert.match(sessionless.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(sessionless.headers.get('cache-control'), 'no-store');
  });

  it('expired: the user page says so, the device gets expired_token, nothing is issued', async () => {
    const { config, app } = await setUp();
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    // Ten minutes pass: the code's own expiry is moved back (its row outlives it, so both sides can be told).
    const past = Math.floor(Date.now() / 1000) - 1;
    const [row] = await deviceRows(svc, app);
    const payload = { ...JSON.parse(row.payload), exp: past };
    await svc.dataSource.query("UPDATE oidc_payloads SET payload = ? WHERE model = 'DeviceCode' AND client_id = ?", [JSON.stringify(payload), app.clientId]);
    const page = await DeviceUser.of(svc).enter(started.user_code);
    assert.equal(page.status, 400);
    assert.equal(deviceErrorOf(page), 'expired');
    const answer = await poll(svc, app, started.device_code);
    assert.equal(answer.body.error, 'expired_token', answer.text);
    assert.equal(answer.body.access_token, undefined);
  });

  it('slow_down (RFC 8628 §3.5): a poll before the interval is refused, and the interval grows by 5 s; the state is in the row', async () => {
    const { config, app, loginName } = await setUp();
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    /**
     * Time without sleeping: the last poll is set to `ms` before now (negative: after it, so that the next poll is
     * too soon however slowly this machine answers).
     */
    const lastPolled = (ms: number) =>
      svc.dataSource.query("UPDATE oidc_payloads SET last_polled_at = ? WHERE model = 'DeviceCode' AND client_id = ?", [Date.now() - ms, app.clientId]);
    assert.equal((await poll(svc, app, started.device_code)).body.error, 'authorization_pending');
    await lastPolled(-10_000);
    const tooSoon = await poll(svc, app, started.device_code);
    assert.equal(tooSoon.status, 400);
    assert.equal(tooSoon.body.error, 'slow_down');
    assert.equal(tooSoon.body.access_token, undefined);
    assert.equal(Number((await deviceRows(svc, app))[0].poll_interval), 6, 'interval 1 s + 5 s');
    // 2 s later: the old interval has passed, the new one (6 s) has not.
    await lastPolled(2_000);
    assert.equal((await poll(svc, app, started.device_code)).body.error, 'slow_down');
    assert.equal(Number((await deviceRows(svc, app))[0].poll_interval), 11, 'each poll too soon adds 5 s');
    await lastPolled(11_000);
    assert.equal((await poll(svc, app, started.device_code)).body.error, 'authorization_pending', 'at the interval: pending again');
    // Two polls at once: one is in time, the other too soon.
    await lastPolled(11_000);
    const both = await Promise.all([poll(svc, app, started.device_code), poll(svc, app, started.device_code)]);
    assert.deepEqual(both.map((r) => r.body.error).sort(), ['authorization_pending', 'slow_down']);
    // An approved code is answered with its tokens, however soon.
    assert.match((await DeviceUser.of(svc).approve(started.user_code, loginName)).text, /data-device-success/);
    const issued = await poll(svc, app, started.device_code);
    assert.equal(issued.status, 200, issued.text);
    assert.ok(decodeJwt(issued.body.id_token).sub);
  });

  it('two processes of one instance: a poll in one makes the next in the other slow_down; a code approved in one is redeemed in the other', async () => {
    const { config, app, loginName } = await setUp('off');
    const second = await spawnSecondProcess(svc, { DEVICE_POLL_INTERVAL_SECONDS: '1' });
    try {
      const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
      assert.equal((await poll(svc, app, started.device_code)).body.error, 'authorization_pending');
      // The device is told to wait 10 s (as after a slow_down): the other process keeps it to that.
      await svc.dataSource.query("UPDATE oidc_payloads SET poll_interval = 10 WHERE model = 'DeviceCode' AND client_id = ?", [app.clientId]);
      const other = await fetch(new URL('/oauth/v2/token', second.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: app.clientId }),
      });
      assert.equal(((await other.json()) as { error?: string }).error, 'slow_down', 'the other process saw the first poll');
      // The user's pages are served by the second process; the device polls the first.
      const done = await new DeviceUser(new LoginClient(second.url, {}, svc.config.publicUrl)).approve(started.user_code, loginName);
      assert.match(done.text, /data-device-success/);
      const issued = await poll(svc, app, started.device_code);
      assert.equal(issued.status, 200, issued.text);
      assert.deepEqual(decodeJwt(issued.body.id_token).amr, ['pwd']);
    } finally {
      await second.stop();
    }
  });

  it('only applications with the device grant: unauthorized_client at the device authorization and token endpoints', async () => {
    const project = await createProject(svc);
    const web = await createOidcApp(svc, project, { authMethod: 'none' }, RP);
    const config = await discover(svc, web.clientId, oidc.None());
    await assert.rejects(oidc.initiateDeviceAuthorization(config, { scope: 'openid' }), (error: { error?: string }) => error.error === 'unauthorized_client');
    const direct = await postForm(svc, '/oauth/v2/device_authorization', { client_id: web.clientId, scope: 'openid' });
    assert.equal(direct.status, 400);
    assert.equal(direct.body.error, 'unauthorized_client');
    // A device code of another application is no grant for this one.
    const tv = await deviceApp(svc, project);
    const started = await oidc.initiateDeviceAuthorization(await discover(svc, tv.clientId, oidc.None()), { scope: 'openid' });
    const foreign = await poll(svc, web, started.device_code);
    assert.equal(foreign.body.error, 'unauthorized_client');
    assert.equal((await postForm(svc, '/oauth/v2/device_authorization', { client_id: 'no-such-client', scope: 'openid' })).body.error, 'invalid_client');
    assert.equal((await svc.dataSource.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'DeviceCode' AND client_id = ?", [web.clientId]))[0].n, 0);
  });

  it('a user of another organization cannot approve: the sign-in is refused, and the device hears access_denied at its next poll (RFC 8628 §3.5)', async () => {
    const { config, app } = await setUp();
    const other = await createProject(svc);
    const stranger = await createHuman(svc, other.orgId);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const person = DeviceUser.of(svc);
    const toLogin = await person.press(await person.enter(started.user_code), 'confirm');
    const { uid, page } = await person.loginPage(toLogin.location!);
    const refused = await person.browser.follow(
      await person.browser.post(`/ui/login/${uid}/login`, {
        csrf: csrfOf(page.text),
        loginName: `${stranger.userName}@${other.primaryDomain}`,
        password: PASSWORD,
      }),
    );
    const answer = await poll(svc, app, started.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.access_token, undefined);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /data-device-denied/);
    assert.match(refused.text, /signs in only users of its own organization/);
    assert.equal(deviceErrorOf(await DeviceUser.of(svc).enter(started.user_code)), 'denied', 'the code is spent');
  });
});

describe('device authorization grant: a sign-in refused after its second factor', () => {
  const svc = useService();

  it('an address to verify that the account lacks, found after the second factor: the device hears access_denied at its next poll (RFC 8628 §3.5)', async () => {
    // SCIM may create a person without an address (the management API may not).
    const tenant = await scimTenant(svc);
    const app = await deviceApp(svc, await createProject(svc, tenant.orgId));
    const policy = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'required', passkeys: false, allowRegistration: false, requireVerifiedEmail: true },
    });
    assert.equal(policy.status, 200, policy.text);
    const userName = unique('mailless');
    const created = await tenant.scim('POST', '/Users', {
      body: { schemas: [USER_SCHEMA], userName, name: { givenName: 'No', familyName: 'Mail' }, password: PASSWORD },
    });
    assert.equal(created.status, 201, created.text);

    const started = await oidc.initiateDeviceAuthorization(await discover(svc, app.clientId, oidc.None()), { scope: 'openid' });
    const person = DeviceUser.of(svc);
    const toLogin = await person.press(await person.enter(started.user_code), 'confirm');
    const { uid, page } = await person.loginPage(toLogin.location!);
    const step = (path: string, from: PageResponse, fields: Record<string, string> = {}) =>
      person.browser.post(`/ui/login/${uid}/${path}`, { csrf: csrfOf(from.text), ...fields });
    const enrol = await person.browser.follow(await step('login', page, { loginName: userName, password: PASSWORD }));
    assert.match(enrol.text, /enrol\/totp/, 'the required second factor is enrolled first');
    const setup = await step('enrol/totp', enrol);
    const codes = await step('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(totpSecretOf(setup)) });
    assert.match(codes.text, /data-recovery-code/, 'the second factor is done');
    const refused = await person.browser.follow(await step('continue', codes));

    const answer = await poll(svc, app, started.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(answer.body.access_token, undefined);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /data-device-denied/);
    assert.match(refused.text, /no e-mail address to confirm/);
    assert.equal(deviceErrorOf(await DeviceUser.of(svc).enter(started.user_code)), 'denied', 'the code is spent');
  });
});

describe('device authorization grant: wrong user codes count against the per-IP limit', () => {
  const svc = useService({ LOGIN_RATE_LIMIT_PER_IP: '4' });

  it('past the limit the page refuses (429, Retry-After) without looking the code up; right codes are given back', async () => {
    const project = await createProject(svc);
    const app = await deviceApp(svc, project);
    const config = await discover(svc, app.clientId, oidc.None());
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const person = DeviceUser.of(svc);
    // A right code, entered and confirmed several times over, never counts.
    for (let i = 0; i < 5; i++) assert.equal((await person.enter(started.user_code)).status, 200);
    for (let i = 0; i < 4; i++) assert.equal(deviceErrorOf(await person.enter('BCDF-GHJK')), 'unknown');
    const refused = await person.enter(started.user_code);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(deviceErrorOf(refused), 'rate_limited');
    assert.match(refused.text, /Too many wrong codes/);
    assert.match(refused.headers.get('content-security-policy') ?? '', /form-action 'self'.*frame-ancestors 'none'/);
    assert.doesNotMatch(refused.text, /data-device-confirm/, 'not even a right code is looked up');
    // The device is not affected: it polls with its device code, not from the user's page.
    assert.equal(
      (await postForm(svc, '/oauth/v2/token', { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: app.clientId })).body.error,
      'authorization_pending',
    );
  });
});
