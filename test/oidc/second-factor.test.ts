import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { databaseState } from '../attack/support/db-state.js';
import type { PageResponse } from '../attack/support/login-client.js';
import bcrypt from 'bcryptjs';
import { humanUser, importBody, importedIds, postImport } from '../import/import.helpers.js';
import { createUser, scimTenant, userBody } from '../scim/scim-helpers.js';
import { searchEvents, unique, useService } from '../support/fixtures.js';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { ACR_MFA, ACR_PASSWORD, SignInFlow, factorIdOf, recoveryCodesOf, setLoginPolicy, totpCode, totpSecretOf } from './support/second-factor.js';

const RP = 'http://127.0.0.1:65530';
/** What a refused check may change: its count (users' failed checks, the rate limits) and its event. */
const COUNTED = ['events', 'users', 'login_attempts'];

/**
 * Multi-factor sign-in over plain HTTP, as a browser without JavaScript posts the login UI's forms
 * (docs/product-rules.md, "Multi-factor sign-in"): the enrolment offer, TOTP and recovery codes, the
 * login policy, step-up with acr_values, and every refused code counted and changing nothing.
 */
describe('second factor: TOTP, recovery codes, login policy and step-up (login UI over HTTP)', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  const flow = () => new SignInFlow(svc, app, `${RP}/cb`);

  async function newUser() {
    const user = await createHuman(svc, project.orgId);
    return { ...user, loginName: `${user.userName}@${project.primaryDomain}` };
  }

  /** Signs a new user in and enrols TOTP through the offer; returns the secret and the recovery codes. */
  async function enrolTotp(user: { loginName: string }) {
    const f = flow();
    await f.authorize();
    const offer = await f.next(await f.password(user.loginName, PASSWORD));
    assert.match(offer.text, /data-mfa-skip/, 'the offer can be declined (policy optional)');
    const setup = await f.post('enrol/totp', offer);
    assert.equal(setup.status, 200);
    const secret = totpSecretOf(setup);
    const uri = (/data-totp-uri="([^"]+)"/.exec(setup.text)?.[1] ?? '').replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    assert.match(uri, /^otpauth:\/\/totp\//);
    assert.equal(new URL(uri).searchParams.get('secret'), secret);
    const enrolCode = totpCode(secret);
    const shown = await f.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: enrolCode });
    assert.equal(shown.status, 200, shown.text.slice(0, 300));
    const codes = recoveryCodesOf(shown);
    assert.equal(codes.length, 10, 'ten recovery codes, shown once');
    const { claims } = await f.tokens(await f.post('continue', shown));
    return { secret, codes, claims, enrolCode };
  }

  async function factorsOf(userId: string): Promise<Array<{ id: string; type: string }>> {
    const res = await svc.api('GET', `/management/v1/orgs/${project.orgId}/users/${userId}/factors`, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    return res.body.factors;
  }

  it('policy optional: a user without factors is offered enrolment once, and declining signs in with the password alone', async () => {
    const user = await newUser();
    const f = flow();
    await f.authorize();
    const offer = await f.next(await f.password(user.loginName, PASSWORD));
    assert.match(offer.text, /data-totp-enrol/);
    assert.match(offer.text, /data-passkey-register/);
    const { claims } = await f.tokens(await f.post('enrol/skip', offer));
    assert.deepEqual(claims.amr, ['pwd']);
    assert.equal(claims.acr, ACR_PASSWORD);
    // Declined: not offered again at the next sign-in.
    const again = flow();
    await again.authorize();
    const done = await again.password(user.loginName, PASSWORD);
    assert.notEqual(done.location, `/ui/login/${again.uid}`, 'straight back to the authorization endpoint');
    await again.tokens(done);
  });

  it('TOTP enrolment, then sign-in with a code: amr pwd+otp+mfa, acr mfa; a replayed or stale code is refused and counted', async () => {
    const user = await newUser();
    const { secret, claims: enrolled, enrolCode } = await enrolTotp(user);
    assert.deepEqual(enrolled.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(enrolled.acr, ACR_MFA);
    const factors = await factorsOf(user.userId);
    assert.deepEqual(factors.map((x) => x.type).sort(), ['recovery_codes', 'totp']);

    const f = flow();
    await f.authorize();
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    assert.match(ask.text, /name="code"/);
    assert.doesNotMatch(ask.text, /data-mfa-skip/, 'a second factor is asked, not offered');
    const failuresBefore = (await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: user.userId })).length;
    // The code used at enrolment (a replay, whether or not a 30 s step has passed since), and a code three steps old
    // (outside ±1): refused, nothing changes but the count.
    for (const code of [enrolCode, totpCode(secret, -3), '000000', 'abc', '']) {
      const state = await databaseState(svc, COUNTED);
      const refused = await f.post('code', ask, { code });
      assert.equal(refused.status, 401, `code ${JSON.stringify(code)}: ${refused.status}`);
      assert.match(refused.text, /wrong, expired or used already/);
      assert.equal(refused.location, undefined);
      assert.equal(await databaseState(svc, COUNTED), state, `code ${JSON.stringify(code)} changed more than the counts`);
    }
    const failed = await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: user.userId });
    assert.equal(failed.length - failuresBefore, 5, 'every refused code is counted as a failed check');
    for (const event of failed) assert.doesNotMatch(JSON.stringify(event.payload), /\d{6}/, 'no code in the event');
    // The next step's code (within +1) is accepted once.
    const next = totpCode(secret, 1);
    const { claims } = await f.tokens(await f.post('code', ask, { code: next }));
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(claims.acr, ACR_MFA);

    const replay = flow();
    await replay.authorize();
    const askAgain = await replay.next(await replay.password(user.loginName, PASSWORD));
    const refused = await replay.post('code', askAgain, { code: next });
    assert.equal(refused.status, 401, 'the same code never works twice');
    const succeeded = await searchEvents(svc, { event_types: ['user.human.mfa.check.succeeded'], aggregate_id: user.userId });
    assert.ok(succeeded.length >= 1);
    for (const event of succeeded) assert.deepEqual(Object.keys(event.payload ?? {}).sort(), ['factorId', 'type']);
  });

  it('re-authentication (max_age=0, prompt=login) asks the password and the second factor again', async () => {
    const user = await newUser();
    const { secret, codes } = await enrolTotp(user);
    const f = flow();
    await f.authorize();
    await f.tokens(await f.post('code', await f.next(await f.password(user.loginName, PASSWORD)), { code: totpCode(secret, 1) }));
    // Within one 30-second step the authenticator has no fresh code left: each round answers with a recovery code.
    for (const [extra, code] of [
      [{ max_age: '0' }, codes[0]],
      [{ prompt: 'login' }, codes[1]],
    ] as const) {
      const login = await f.authorize(extra);
      assert.match(login.text, /name="password"/, `${JSON.stringify(extra)}: the password first`);
      const ask = await f.next(await f.password(user.loginName, PASSWORD));
      assert.match(ask.text, /name="code"/, `${JSON.stringify(extra)}: then the second factor`);
      const { claims } = await f.tokens(await f.post('code', ask, { code }));
      assert.equal(claims.acr, ACR_MFA);
      assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    }
  });

  it('a recovery code works once, in any letter case and with or without dashes', async () => {
    const user = await newUser();
    const { codes } = await enrolTotp(user);
    const f = flow();
    await f.authorize();
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    const { claims } = await f.tokens(await f.post('code', ask, { code: codes[0].toLowerCase().replace(/-/g, '') }));
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);

    const again = flow();
    await again.authorize();
    const askAgain = await again.next(await again.password(user.loginName, PASSWORD));
    const state = await databaseState(svc, COUNTED);
    const reused = await again.post('code', askAgain, { code: codes[0] });
    assert.equal(reused.status, 401, 'a used recovery code is refused');
    assert.equal(await databaseState(svc, COUNTED), state, 'nothing changed but the counts');
    await again.tokens(await again.post('code', askAgain, { code: codes[1] }));
  });

  it('the same TOTP or recovery code sent by two sign-ins at once is accepted once', async () => {
    const user = await newUser();
    const { secret, codes } = await enrolTotp(user);
    for (const code of [totpCode(secret, 1), codes[0]]) {
      const flows = [flow(), flow()];
      const pages: PageResponse[] = [];
      for (const f of flows) {
        await f.authorize();
        pages.push(await f.next(await f.password(user.loginName, PASSWORD)));
      }
      const answers = await Promise.all(flows.map((f, i) => f.post('code', pages[i], { code })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [303, 401], `${code}: one sign-in gets it, the other is refused`);
    }
  });

  it('wrong codes count toward the lockout: the user is locked at the limit, even with the right password', async () => {
    const user = await newUser();
    await enrolTotp(user);
    const limit = Number((await svc.dataSource.query('SELECT lockout_max_attempts AS n FROM instance'))[0].n);
    assert.ok(limit > 0 && limit < 20, `a lockout limit is configured: ${limit}`);
    const f = flow();
    await f.authorize();
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    for (let i = 0; i < limit; i++) await f.post('code', ask, { code: '000000' });
    const locked = await searchEvents(svc, { event_types: ['user.locked'], aggregate_id: user.userId });
    assert.equal(locked.length, 1, 'locked by wrong codes');
    const retry = flow();
    await retry.authorize();
    const refused = await retry.password(user.loginName, PASSWORD);
    assert.equal(refused.status, 401, 'a locked user cannot sign in');
  });

  it('a right password never clears the count of wrong codes: one guess per sign-in still locks the user at the limit', async () => {
    // The right password used to reset the count, so codes could be guessed forever.
    const user = await newUser();
    await enrolTotp(user);
    const limit = Number((await svc.dataSource.query('SELECT lockout_max_attempts AS n FROM instance'))[0].n);
    const count = async () => Number((await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [user.userId]))[0].n);
    for (let i = 1; i < limit; i++) {
      const f = flow();
      await f.authorize();
      const ask = await f.next(await f.password(user.loginName, PASSWORD));
      assert.match(ask.text, /name="code"/, `round ${i}: the password is still accepted`);
      assert.equal((await f.post('code', ask, { code: '000000' })).status, 401);
      assert.equal(await count(), i, `round ${i}: the right password kept the wrong codes counted`);
    }
    const last = flow();
    await last.authorize();
    const ask = await last.next(await last.password(user.loginName, PASSWORD));
    await last.post('code', ask, { code: '000000' });
    assert.equal((await searchEvents(svc, { event_types: ['user.locked'], aggregate_id: user.userId })).length, 1, 'locked at the limit');
    const after = flow();
    await after.authorize();
    assert.equal((await after.password(user.loginName, PASSWORD)).status, 401, 'locked: even the right password and code cannot sign in');
  });

  it('a sign-in that completes every factor starts the count over', async () => {
    const user = await newUser();
    const { secret } = await enrolTotp(user);
    const count = async () => Number((await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [user.userId]))[0].n);
    const wrong = flow();
    await wrong.authorize();
    assert.equal((await wrong.password(user.loginName, 'not-the-password')).status, 401);
    const f = flow();
    await f.authorize();
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    assert.equal(await count(), 1, 'the wrong password stays counted after the right one');
    await f.post('code', ask, { code: '000000' });
    assert.equal(await count(), 2);
    const { claims } = await f.tokens(await f.post('code', ask, { code: totpCode(secret, 1) }));
    assert.equal(claims.acr, ACR_MFA);
    assert.equal(await count(), 0, 'the completed sign-in starts over');
  });

  it('a wrong first TOTP code leaves the enrolment pending: no factor until a right code', async () => {
    const user = await newUser();
    const f = flow();
    await f.authorize();
    const offer = await f.next(await f.password(user.loginName, PASSWORD));
    const setup = await f.post('enrol/totp', offer);
    const secret = totpSecretOf(setup);
    const wrong = await f.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(secret, -5) });
    assert.equal(wrong.status, 401);
    assert.equal(totpSecretOf(wrong), secret, 'the same secret is shown again');
    assert.deepEqual(await factorsOf(user.userId), [], 'no factor yet');
    const forged = await f.post('enrol/totp/confirm', setup, { factorId: 'another-factor', code: totpCode(secret) });
    assert.equal(forged.status, 303, 'a factor id not of this enrolment restarts the step');
    assert.deepEqual(await factorsOf(user.userId), []);
  });

  it('policy required: a user without factors must enrol before the authorization completes; skipping is refused', async () => {
    const org = await createProject(svc);
    const requiredApp = await createOidcApp(svc, org, { authMethod: 'client_secret_basic' }, RP);
    await setLoginPolicy(svc, org.orgId, { mfa: 'required' });
    const user = await createHuman(svc, org.orgId);
    const f = new SignInFlow(svc, requiredApp, `${RP}/cb`);
    await f.authorize();
    const enrol = await f.next(await f.password(`${user.userName}@${org.primaryDomain}`, PASSWORD));
    assert.match(enrol.text, /requires a second factor/);
    assert.doesNotMatch(enrol.text, /data-mfa-skip/);
    const skipped = await f.post('enrol/skip', enrol);
    assert.equal(skipped.location, `/ui/login/${f.uid}`, 'skipping only shows the step again');
    // Going to the authorization endpoint's resume URL directly signs nobody in.
    const resumed = await f.client.follow(await f.client.get(`/oauth/v2/authorize/${f.uid}`));
    assert.ok(!(resumed.location ?? '').includes('code='), `no code without the second factor: ${resumed.location}`);
  });

  it('policy required holds at the refresh grant: a password-only grant gets invalid_grant once the organization requires a second factor', async () => {
    // Before the fix, such a refresh token kept minting acr pwd tokens for its whole lifetime.
    const org = await createProject(svc);
    const orgApp = await createOidcApp(svc, org, { authMethod: 'client_secret_basic' }, RP);
    await setLoginPolicy(svc, org.orgId, { mfa: 'off' });
    const user = await createHuman(svc, org.orgId);
    const f = new SignInFlow(svc, orgApp, `${RP}/cb`);
    await f.authorize({ scope: 'openid offline_access' });
    const { claims, tokens } = await f.tokens(await f.password(`${user.userName}@${org.primaryDomain}`, PASSWORD));
    assert.equal(claims.acr, ACR_PASSWORD);
    assert.ok(tokens.refresh_token, 'offline_access brought a refresh token');
    const refresh = (token: string) =>
      postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: token }, { id: orgApp.clientId, secret: orgApp.clientSecret! });
    const first = await refresh(tokens.refresh_token);
    assert.equal(first.status, 200, `refreshed while the policy is off: ${first.text}`);
    await setLoginPolicy(svc, org.orgId, { mfa: 'required' });
    const refused = await refresh(first.body.refresh_token);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'invalid_grant');
    assert.match(refused.body.error_description, /second factor/);
  });

  it('policy required: imported and SCIM-provisioned users enrol a factor at their first sign-in', async () => {
    const tenant = await scimTenant(svc);
    const provisioned = unique('scim');
    await createUser(tenant, userBody(provisioned, { password: PASSWORD }));
    const importedOrg = unique('imported-org');
    const imported = unique('imported');
    const response = await postImport(
      svc,
      importBody([
        {
          orgId: importedOrg,
          org: { name: importedOrg },
          humanUsers: [humanUser(unique('imp'), imported, { hashedPassword: { value: bcrypt.hashSync(PASSWORD, 4) } })],
        },
      ]),
    );
    assert.equal(importedIds(response).length, 1);
    // A bare login name: each name is the only one of its kind in the instance.
    for (const [orgId, userName] of [
      [tenant.orgId, provisioned],
      [importedOrg, imported],
    ]) {
      const orgApp = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }, RP);
      await setLoginPolicy(svc, orgId, { mfa: 'required' });
      const f = new SignInFlow(svc, orgApp, `${RP}/cb`);
      await f.authorize();
      const enrol = await f.next(await f.password(userName, PASSWORD));
      assert.match(enrol.text, /requires a second factor/, `${userName}: enrolment required`);
      const setup = await f.post('enrol/totp', enrol);
      const shown = await f.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(totpSecretOf(setup)) });
      assert.equal((await f.tokens(await f.post('continue', shown))).claims.acr, ACR_MFA);
    }
  });

  it('step-up: acr_values asks the session user only for the second factor; prompt=none answers interaction_required', async () => {
    const org = await createProject(svc);
    const stepApp = await createOidcApp(svc, org, { authMethod: 'client_secret_basic' }, RP);
    const user = await createHuman(svc, org.orgId);
    const loginName = `${user.userName}@${org.primaryDomain}`;
    const f = new SignInFlow(svc, stepApp, `${RP}/cb`);
    // Enrol TOTP, then sign in with the password only while the policy is off: a session with acr pwd.
    await f.authorize();
    const offer = await f.next(await f.password(loginName, PASSWORD));
    const setup = await f.post('enrol/totp', offer);
    const secret = totpSecretOf(setup);
    await f.tokens(await f.post('continue', await f.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(secret) })));
    await setLoginPolicy(svc, org.orgId, { mfa: 'off' });
    await f.authorize({ prompt: 'login' });
    const pwdOnly = await f.tokens(await f.password(loginName, PASSWORD));
    assert.equal(pwdOnly.claims.acr, ACR_PASSWORD, 'policy off: the password alone');
    assert.deepEqual(pwdOnly.claims.amr, ['pwd']);
    await setLoginPolicy(svc, org.orgId, { mfa: 'optional' });

    const silent = await f.authorize({ prompt: 'none', acr_values: ACR_MFA });
    assert.equal(new URL(silent.location ?? '').searchParams.get('error'), 'interaction_required');

    const ask = await f.authorize({ acr_values: ACR_MFA });
    assert.match(ask.text, /name="code"/, `the second factor, without the password again: ${ask.status} ${ask.location}`);
    assert.doesNotMatch(ask.text, /name="password"/);
    const stepped = await f.tokens(await f.post('code', ask, { code: totpCode(secret, 1) }));
    assert.equal(stepped.claims.acr, ACR_MFA);
    assert.deepEqual(stepped.claims.amr, ['pwd', 'otp', 'mfa']);
    // The session now has its second factor: the next request with acr_values needs no page at all.
    const sso = await f.authorize({ acr_values: ACR_MFA });
    assert.equal((await f.redeem((await f.client.follow(sso)).location ?? '')).claims.acr, ACR_MFA);
  });

  it('malformed or foreign passkey responses are refused, counted by the rate limit, and change nothing', async () => {
    const user = await newUser();
    await enrolTotp(user);
    const f = flow();
    const login = await f.authorize();
    assert.match(login.text, /data-passkey-login/);
    const forged = JSON.stringify({
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
      clientExtensionResults: {},
    });
    for (const response of ['', 'not json', '[]', '{}', '{"id":{"toString":1}}', forged]) {
      const state = await databaseState(svc, COUNTED);
      const refused = await f.post('passkey', login, { response });
      assert.equal(refused.status, 401, `response ${response.slice(0, 40)}: ${refused.status}`);
      assert.match(refused.text, /passkey was not accepted/);
      assert.equal(await databaseState(svc, COUNTED), state);
    }
    // As the second factor of a pending sign-in: a forged assertion is refused and counted against the user.
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    const before = (await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: user.userId })).length;
    const refused = await f.post('passkey', ask, { response: forged });
    assert.equal(refused.status, 401);
    const after = (await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: user.userId })).length;
    assert.equal(after - before, 1);
  });

  it('the management API lists and removes factors; removing the TOTP factor ends its use at sign-in', async () => {
    const user = await newUser();
    const { secret } = await enrolTotp(user);
    const totp = (await factorsOf(user.userId)).find((x) => x.type === 'totp')!;
    const removed = await svc.api('DELETE', `/management/v1/orgs/${project.orgId}/users/${user.userId}/factors/${totp.id}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    const f = flow();
    await f.authorize();
    const ask = await f.next(await f.password(user.loginName, PASSWORD));
    const refused = await f.post('code', ask, { code: totpCode(secret, 1) });
    assert.equal(refused.status, 401, 'the removed authenticator no longer signs in');
    const events = await searchEvents(svc, { event_types: ['user.human.mfa.added', 'user.human.mfa.removed'], aggregate_id: user.userId });
    assert.deepEqual(events.map((e) => e.type.type).sort(), ['user.human.mfa.added', 'user.human.mfa.added', 'user.human.mfa.removed']);
    for (const event of events) assert.ok(!JSON.stringify(event).includes(secret), 'no secret in any event');
  });
});
