import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { PKCE, authorizeParams } from '../oidc/support/authorize-params.js';
import { orgWithApp } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { createCaller, searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

const RP = 'http://127.0.0.1:65530';
const PASSWORD = 'Verified pass 1';

/**
 * docs/mail.md, "E-mail verification": an administrator asks for it, or the login policy's `requireVerifiedEmail` stops a
 * sign-in until the mailed link (MailDev) is followed. A link's GET verifies nothing (mail scanners fetch links).
 */
describe('e-mail verification', () => {
  const { svc, mail } = useServiceWithMail();
  let orgId: string;
  let manager: { userId: string; token: string };
  let app: OidcApp;

  before(async () => {
    ({ orgId, manager, app } = await orgWithApp(svc));
  });

  const person = async (options: { verified?: boolean; email?: boolean } = {}) => {
    const userName = unique('eve');
    const email = `${userName}@example.com`;
    const res = await svc.api('POST', `/scim/v2/${orgId}/Users`, {
      token: manager.token,
      headers: { 'content-type': 'application/scim+json' },
      body: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        name: { givenName: 'Eve', familyName: 'Example' },
        ...(options.email === false ? {} : { emails: [{ value: email, primary: true }] }),
        password: PASSWORD,
      },
    });
    assert.equal(res.status, 201, res.text);
    const userId = res.body.id as string;
    if (options.verified) await patchEmail(userId, email, true);
    return { userId, userName, email };
  };
  const patchEmail = async (userId: string, email: string, isEmailVerified?: boolean) => {
    const res = await svc.api('PATCH', `/management/v1/orgs/${orgId}/users/${userId}`, {
      token: manager.token,
      body: { email: { email, ...(isEmailVerified === undefined ? {} : { isEmailVerified }) } },
    });
    assert.equal(res.status, 200, res.text);
  };
  const verified = async (userId: string) =>
    (await svc.api('GET', `/management/v1/orgs/${orgId}/users/${userId}`, { token: manager.token })).body.email.isEmailVerified as boolean;
  const requestVerification = (userId: string) =>
    svc.api('POST', `/management/v1/orgs/${orgId}/users/${userId}/email/verify`, { token: manager.token, body: {} });
  const path = (link: string) => link.slice(svc.config.publicUrl.length);

  it('an administrator sends a link; opening it asks for one click, which verifies the address, once', async () => {
    const eve = await person();
    const res = await requestVerification(eve.userId);
    assert.equal(res.status, 202, res.text);
    const expiresIn = Date.parse(res.body.expiresAt) - Date.now();
    assert.ok(expiresIn > 23.9 * 3_600_000 && expiresIn <= 24 * 3_600_000, res.body.expiresAt);
    const message = await mail.waitFor(eve.email);
    assert.match(message.subject, /: confirm your e-mail address$/);
    const link = linkIn(message);
    assert.ok(link.startsWith(`${svc.config.publicUrl}/ui/login/email-verification?code=`), link);

    const browser = new LoginClient(svc.url);
    const page = await browser.get(path(link));
    assert.equal(page.status, 200);
    assert.match(page.text, /data-email-verification/);
    assert.equal(await verified(eve.userId), false, 'opening the link verifies nothing');
    const code = new URL(link).searchParams.get('code')!;
    const done = await browser.post('/ui/login/email-verification', { code });
    assert.equal(done.status, 200, done.text);
    assert.match(done.text, /data-email-verified/);
    assert.equal(await verified(eve.userId), true);
    assert.equal((await browser.post('/ui/login/email-verification', { code })).status, 400, 'once');
    const types = (await searchEvents(svc, { aggregate_id: eve.userId })).map((e) => e.type.type);
    for (const type of ['user.human.email.verification.sent', 'user.human.email.verified']) assert.ok(types.includes(type), `${type} in ${types}`);
    assert.equal((await requestVerification(eve.userId)).status, 409, 'already verified');
  });

  it('a changed address ends the link sent to the old one; nothing to verify is 409, and changes nothing', async () => {
    const eve = await person();
    assert.equal((await requestVerification(eve.userId)).status, 202);
    const link = linkIn(await mail.waitFor(eve.email));
    await patchEmail(eve.userId, `new-${eve.email}`);
    assert.equal((await new LoginClient(svc.url).get(path(link))).status, 400, 'the old address cannot verify the new one');

    const mailless = await person({ email: false });
    const refused = await requestVerification(mailless.userId);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /no e-mail address/);
    const machine = await createCaller(svc, orgId);
    assert.equal((await requestVerification(machine.userId)).status, 409);
    const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM user_codes WHERE user_id IN (?, ?)', [mailless.userId, machine.userId]);
    assert.equal(Number(row.n), 0);
  });

  describe('with requireVerifiedEmail in the login policy', () => {
    before(async () => {
      const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
        token: svc.adminToken,
        body: { mfa: 'optional', passkeys: true, allowRegistration: false, requireVerifiedEmail: true },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.requireVerifiedEmail, true);
    });

    const signIn = async (loginName: string) => {
      const browser = new LoginClient(svc.url);
      const { uid, csrf } = await browser.startLogin(authorizeParams(app.clientId, PKCE));
      return { browser, uid, landed: await browser.follow(await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD })) };
    };
    const reachedApp = (page: { location?: string }) => Boolean(page.location?.startsWith(`${RP}/cb`) && new URL(page.location).searchParams.get('code'));

    it('stops an unverified sign-in at [data-verify-email] until the mailed link is followed, then completes it', async () => {
      const eve = await person();
      const { browser, uid, landed } = await signIn(eve.userName);
      assert.equal(landed.status, 200);
      assert.match(landed.text, /data-verify-email/);
      assert.ok(landed.text.includes(eve.email), 'names the address the link went to');
      const csrf = csrfOf(landed.text);
      const early = await browser.post(`/ui/login/${uid}/verify-email`, { csrf });
      assert.match(early.text, /not confirmed yet/);
      assert.ok(!reachedApp(early));

      const first = linkIn(await mail.waitFor(eve.email));
      const resent = await browser.post(`/ui/login/${uid}/verify-email/resend`, { csrf });
      assert.match(resent.text, /A new link is on its way/);
      const second = linkIn(await mail.waitFor(eve.email, (m) => linkIn(m) !== first));
      const elsewhere = new LoginClient(svc.url);
      assert.equal((await elsewhere.get(path(first))).status, 400, 'the earlier link no longer works');
      assert.equal((await elsewhere.post('/ui/login/email-verification', { code: new URL(second).searchParams.get('code')! })).status, 200);

      const done = await browser.follow(await browser.post(`/ui/login/${uid}/verify-email`, { csrf }));
      assert.ok(reachedApp(done), `completed: ${done.status} ${done.location}`);
      assert.ok(reachedApp((await signIn(eve.userName)).landed), 'the next sign-in is not stopped');
    });

    it('lets a verified user through, and refuses one without an address with a page saying why', async () => {
      assert.ok(reachedApp((await signIn((await person({ verified: true })).userName)).landed));
      const mailless = await person({ email: false });
      const { landed } = await signIn(mailless.userName);
      assert.equal(landed.status, 403);
      assert.match(landed.text, /no e-mail address to confirm/);
    });
  });
});
