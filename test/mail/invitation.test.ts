import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { countRows, createCaller, searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

const RP = 'http://127.0.0.1:65530';

/**
 * Invitations (docs/mail.md, "Invitation"), as an operator and the invited person meet them: Entra ID provisions a person by SCIM
 * (no password: Entra never sends one), an administrator invites them, MailDev receives the mail, and the
 * person follows its link, chooses a password and signs in to an OIDC application.
 */
describe('invitations by mail', () => {
  const { svc, mail } = useServiceWithMail();
  let tenant: ScimTenant;
  let app: OidcApp;
  let manager: { userId: string; token: string };

  before(async () => {
    tenant = await scimTenant(svc);
    manager = await createCaller(svc, tenant.orgId, { org: ['ORG_USER_MANAGER'] });
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' });
  });

  /** The request Entra ID's provisioning service sends for a new user (Microsoft's SCIM docs): no password. */
  const provisionByEntra = async (address: string, extra: Record<string, unknown> = {}) => {
    const res = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: unique('entra-oid'),
        userName: address,
        active: true,
        displayName: 'Grace Hopper',
        emails: [{ primary: true, type: 'work', value: address }],
        name: { formatted: 'Grace Hopper', familyName: 'Hopper', givenName: 'Grace' },
        ...extra,
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const invite = (userId: string, token = manager.token) => svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/${userId}/invite`, { token, body: {} });
  const address = () => `${unique('grace')}@contoso.example`;

  it('invites the Entra-provisioned person, who sets a password by the mailed link and signs in to an application', async () => {
    const email = address();
    const userId = await provisionByEntra(email);
    const before = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: email,
      password: 'any password at all',
    }).catch((e: Error) => e);
    assert.ok(before instanceof Error, 'no password: no sign-in before the invitation');

    const res = await invite(userId);
    assert.equal(res.status, 202, res.text);
    const expiresIn = Date.parse(res.body.expiresAt) - Date.now();
    assert.ok(expiresIn > 6.9 * 86_400_000 && expiresIn <= 7 * 86_400_000, `valid for 7 days: ${res.body.expiresAt}`);

    const message = await mail.waitFor(email);
    const [org] = await svc.dataSource.query('SELECT name FROM organizations WHERE id = ?', [tenant.orgId]);
    assert.equal(message.subject, `${org.name}: you are invited`);
    assert.ok(message.html.includes('<a href="'), 'an HTML part with the link');
    assert.match(message.text, /Hello Grace Hopper,/);
    const link = linkIn(message);
    assert.ok(link.startsWith(`${svc.config.publicUrl}/ui/login/invitation?code=`), link);
    assert.ok(!link.includes(encodeURIComponent(email)) && !link.includes(email), 'the link names no login name');
    assert.equal(
      message.messageId.replace(/^<|>$/g, ''),
      `${(await outboxRow(userId)).id}@${svc.config.instanceDomain}`,
      'the same Message-ID on every attempt',
    );

    const browser = new LoginClient(svc.url);
    const page = await browser.get(link.slice(svc.config.publicUrl.length));
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /data-invitation/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const code = new URL(link).searchParams.get('code')!;

    const mismatch = await browser.post('/ui/login/invitation', { code, password: 'Correct horse 1', passwordConfirm: 'Correct horse 2' });
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.text, /The two passwords differ/);
    const short = await browser.post('/ui/login/invitation', { code, password: 'short', passwordConfirm: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.text, /data-invitation/, 'the form again, the code still good');

    const set = await browser.post('/ui/login/invitation', { code, password: 'Correct horse 1', passwordConfirm: 'Correct horse 1' });
    assert.equal(set.status, 200, set.text);
    assert.match(set.text, /data-password-set/);
    // No dead end: the login name to use, and the way on to the person's applications.
    assert.ok(set.text.includes(`Your login name is ${email}@`), set.text);
    assert.match(set.text, /<a href="\/ui\/apps" data-my-apps>Open your applications<\/a>/);

    const signedIn = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: email,
      password: 'Correct horse 1',
    });
    assert.ok(signedIn.tokens?.id_token, `signed in: ${signedIn.error}`);

    const reused = await browser.post('/ui/login/invitation', { code, password: 'Another horse 2', passwordConfirm: 'Another horse 2' });
    assert.equal(reused.status, 400);
    assert.match(reused.text, /data-error="invalid_link"/);

    const user = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${userId}`, { token: manager.token });
    assert.equal(user.body.email.isEmailVerified, true, 'following the link proved the address');
    const types = (await searchEvents(svc, { aggregate_id: userId })).map((e) => `${e.type.type}${e.payload.method ? `:${e.payload.method}` : ''}`);
    for (const type of ['user.human.invitation.sent', 'user.human.email.verified', 'user.human.password.changed:invitation'])
      assert.ok(types.includes(type), `${type} in ${types}`);
    const row = await outboxRow(userId);
    assert.equal(row.status, 'sent');
    assert.equal(row.content, null, 'the content (with its code) is erased once sent');
  });

  it('writes in the language the person prefers (German)', async () => {
    const email = address();
    const userId = await provisionByEntra(email, { preferredLanguage: 'de-CH' });
    assert.equal((await invite(userId)).status, 202);
    const message = await mail.waitFor(email);
    assert.match(message.subject, /: Sie sind eingeladen$/);
    assert.match(message.text, /Der Link gilt 7 Tage und nur einmal\./);
    const page = await new LoginClient(svc.url).get(linkIn(message).slice(svc.config.publicUrl.length));
    assert.match(page.text, /<html lang="de" dir="ltr">/);
  });

  it('keeps the code encrypted in the outbox until it is sent', async () => {
    await mail.stop();
    try {
      const email = address();
      const userId = await provisionByEntra(email);
      assert.equal((await invite(userId)).status, 202);
      const row = await outboxRow(userId);
      assert.equal(row.status, 'pending');
      assert.match(String(row.content), /^v1\./, 'sealed with the master key');
      assert.ok(!String(row.content).includes('invitation?code='), 'no link in the clear');
      const [code] = await svc.dataSource.query('SELECT secret_hash FROM user_codes WHERE user_id = ?', [userId]);
      assert.ok(code?.secret_hash, 'only the hash of the code is stored');
    } finally {
      await mail.start();
    }
  });

  it('a newer invitation replaces the older, and a password set by an administrator ends it', async () => {
    const email = address();
    const userId = await provisionByEntra(email);
    assert.equal((await invite(userId)).status, 202);
    const first = linkIn(await mail.waitFor(email));
    // Within a minute of the first, a second invitation is refused (429, Retry-After); after it, it replaces the first.
    const tooSoon = await invite(userId);
    assert.equal(tooSoon.status, 429, tooSoon.text);
    const retryAfter = Number(tooSoon.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    assert.equal(Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM mail_messages WHERE user_id = ?', [userId]))[0].n), 1, 'no second mail');
    await svc.dataSource.query('UPDATE user_codes SET created_at = created_at - 61000 WHERE user_id = ?', [userId]);
    assert.equal((await invite(userId)).status, 202);
    const second = linkIn(await mail.waitFor(email, (m) => linkIn(m) !== first));
    const browser = new LoginClient(svc.url);
    assert.equal((await browser.get(first.slice(svc.config.publicUrl.length))).status, 400, 'the first link stopped working');
    assert.equal((await browser.get(second.slice(svc.config.publicUrl.length))).status, 200);
    const set = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/users/${userId}/password`, {
      token: manager.token,
      body: { password: 'Set by admin 123' },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal((await browser.get(second.slice(svc.config.publicUrl.length))).status, 400, 'a password change ends every link');
  });

  it('refuses what cannot be invited, changing nothing: a machine, no e-mail, an unknown id, another organization, a caller without every role of the target', async () => {
    const codes = await countRows(svc, 'user_codes');
    const messages = await countRows(svc, 'mail_messages');
    const machine = await createCaller(svc, tenant.orgId);
    assert.equal((await invite(machine.userId)).status, 409);
    // SCIM may create a person without an address (the management API may not).
    const noMail = await tenant.scim('POST', '/Users', {
      body: { schemas: [USER_SCHEMA], userName: unique('nomail'), name: { givenName: 'No', familyName: 'Mail' } },
    });
    assert.equal(noMail.status, 201, noMail.text);
    const refused = await invite(noMail.body.id);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /no e-mail address/);
    assert.equal((await invite('00000000-0000-7000-8000-000000000000')).status, 404);
    const other = await scimTenant(svc);
    // Another organization's manager learns nothing: 404, as for every resource of another tenant.
    assert.equal((await invite(await provisionByEntra(address()), other.token)).status, 404, "another organization's manager");
    // SECURITY.md, "Who may act on whom": an ORG_USER_MANAGER may not act on an ORG_OWNER (it does not hold every role of the target).
    const owner = await provisionByEntra(address());
    assert.equal(
      (await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/members/${owner}`, { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } })).status,
      200,
    );
    assert.equal((await invite(owner)).status, 403);
    assert.equal(await countRows(svc, 'user_codes'), codes, 'no code issued');
    assert.equal(await countRows(svc, 'mail_messages'), messages, 'no message queued');
  });

  it('with inviteOnProvision, SCIM, Bulk and the management API invite a person created with an address and no password, in the same transaction', async () => {
    const org = await scimTenant(svc);
    const policy = await svc.api('PUT', `/management/v1/orgs/${org.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'optional', passkeys: true, allowRegistration: false, inviteOnProvision: true },
    });
    assert.equal(policy.status, 200, policy.text);
    assert.equal(policy.body.inviteOnProvision, true);
    const scimUser = (userName: string, extra: Record<string, unknown> = {}) => ({
      schemas: [USER_SCHEMA],
      userName,
      emails: [{ value: userName, primary: true }],
      name: { givenName: 'Pat', familyName: 'Person' },
      ...extra,
    });
    const queuedFor = async (userName: string) =>
      Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM mail_messages m JOIN users u ON u.id = m.user_id WHERE u.user_name = ?', [userName]))[0].n);

    const byScim = address();
    assert.equal((await org.scim('POST', '/Users', { body: scimUser(byScim) })).status, 201);
    const bulkAddress = address();
    const bulk = await org.scim('POST', '/Bulk', {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
        Operations: [{ method: 'POST', path: '/Users', bulkId: 'b1', data: scimUser(bulkAddress) }],
      },
    });
    assert.equal(bulk.status, 200, bulk.text);
    assert.equal(bulk.body.Operations[0].status, '201');
    const byApi = address();
    const created = await svc.api('POST', `/management/v1/orgs/${org.orgId}/users/human`, {
      token: org.token,
      body: { userName: byApi, profile: { firstName: 'Pat', lastName: 'Person' }, email: { email: byApi } },
    });
    assert.equal(created.status, 201, created.text);
    for (const email of [byScim, bulkAddress, byApi]) assert.match((await mail.waitFor(email)).subject, /: you are invited$/);

    // No invitation for a person with a password, one created inactive, or a create that failed.
    const withPassword = address();
    assert.equal((await org.scim('POST', '/Users', { body: scimUser(withPassword, { password: 'Chosen by Entra 1' }) })).status, 201);
    const inactive = address();
    assert.equal((await org.scim('POST', '/Users', { body: scimUser(inactive, { active: false }) })).status, 201);
    const messages = await countRows(svc, 'mail_messages');
    assert.equal((await org.scim('POST', '/Users', { body: scimUser(byScim) })).status, 409, 'a duplicate is refused');
    assert.equal(await countRows(svc, 'mail_messages'), messages, 'and queues nothing');
    assert.equal(await queuedFor(withPassword), 0);
    assert.equal(await queuedFor(inactive), 0);
    assert.equal(await queuedFor(byScim), 1);
  });

  it('answers an unknown, malformed or other-purpose code with a clear page, never a form', async () => {
    const browser = new LoginClient(svc.url);
    for (const code of ['', 'nonsense', '0196-not-a-code.abc', 'x'.repeat(300)]) {
      const page = await browser.get(`/ui/login/invitation?code=${encodeURIComponent(code)}`);
      assert.equal(page.status, 400, code);
      assert.match(page.text, /data-error="invalid_link"/);
    }
    const set = await browser.post('/ui/login/password-reset', { code: 'nonsense', password: 'Correct horse 1', passwordConfirm: 'Correct horse 1' });
    assert.equal(set.status, 400);
  });

  const outboxRow = async (userId: string) => {
    const rows = await svc.dataSource.query('SELECT id, status, content FROM mail_messages WHERE user_id = ? ORDER BY created_at DESC', [userId]);
    assert.ok(rows.length > 0, 'a message in the outbox');
    return rows[0] as { id: string; status: string; content: string | null };
  };
});
