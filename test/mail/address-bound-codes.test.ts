import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { humanUser, importBody, postImport } from '../import/import.helpers.js';
import { orgWithApp } from '../oidc/support/oidc-fixtures.js';
import { PATCH_OP, USER_SCHEMA } from '../scim/scim-helpers.js';
import { searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

const PASSWORD = 'Bound codes 1';
const NEW_PASSWORD = 'Chosen by link 2';

/**
 * docs/mail.md, "Codes", and docs/product-rules.md, "Verified addresses": a mailed link proves the mailbox it went
 * to and no other, and a verified address names one user of an organization. Each test is an attack that worked:
 * ask for links to one's own mailbox, move the account to someone else's address, follow the old link.
 */
describe('codes bound to their address; one verified holder per address', () => {
  const { svc, mail } = useServiceWithMail();
  let orgId: string;
  let manager: { userId: string; token: string };

  before(async () => {
    ({ orgId, manager } = await orgWithApp(svc));
  });

  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: manager.token, body });
  const scim = (method: string, path: string, body: unknown) =>
    svc.api(method, `/scim/v2/${orgId}${path}`, { token: manager.token, body, headers: { 'content-type': 'application/scim+json' } });
  const person = async (options: { email?: string; verified?: boolean } = {}) => {
    const userName = unique('mal');
    const email = options.email ?? `${userName}@example.com`;
    const res = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'Mal', lastName: 'Lory' },
      email: { email, isEmailVerified: options.verified ?? false },
      password: PASSWORD,
    });
    assert.equal(res.status, 201, res.text);
    return { userId: res.body.userId as string, userName, email };
  };
  const emailOf = async (userId: string) => (await api('GET', `/users/${userId}`)).body.email as { email: string; isEmailVerified: boolean };
  const codesOf = async (userId: string) => Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM user_codes WHERE user_id = ?', [userId]))[0].n);
  const codeOf = (link: string) => new URL(link).searchParams.get('code')!;
  /** An administrator mails all three links to the person's current address. */
  const mailAllLinks = async (who: { userId: string; email: string }) => {
    const links: Record<string, string> = {};
    for (const [kind, path, subject] of [
      ['invitation', 'invite', /you are invited$/],
      ['password-reset', 'password/reset', /reset your password$/],
      ['email-verification', 'email/verify', /confirm your e-mail address$/],
    ] as const) {
      assert.equal((await api('POST', `/users/${who.userId}/${path}`, {})).status, 202);
      links[kind] = linkIn(await mail.waitFor(who.email, (m) => subject.test(m.subject)));
    }
    return links;
  };
  const follow = async (links: Record<string, string>) => {
    const browser = new LoginClient(svc.url);
    return {
      invitation: await browser.post('/ui/login/invitation', { code: codeOf(links.invitation), password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD }),
      reset: await browser.post('/ui/login/password-reset', { code: codeOf(links['password-reset']), password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD }),
      verification: await browser.post('/ui/login/email-verification', { code: codeOf(links['email-verification']) }),
    };
  };

  /** Every way an administrator's client changes a person's address. */
  const changes: [string, (userId: string, userName: string, email: string) => Promise<{ status: number; text: string }>][] = [
    ['management API PATCH', (userId, _name, email) => api('PATCH', `/users/${userId}`, { email: { email } })],
    [
      'SCIM PUT',
      (userId, userName, email) =>
        scim('PUT', `/Users/${userId}`, {
          schemas: [USER_SCHEMA],
          userName,
          name: { givenName: 'Mal', familyName: 'Lory' },
          emails: [{ value: email, primary: true }],
        }),
    ],
    [
      'SCIM PATCH',
      (userId, _name, email) =>
        scim('PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails', value: [{ value: email, primary: true }] }] }),
    ],
    [
      'SCIM Bulk',
      async (userId, _name, email) => {
        const res = await scim('POST', '/Bulk', {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
          Operations: [
            {
              method: 'PATCH',
              path: `/Users/${userId}`,
              data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails', value: [{ value: email, primary: true }] }] },
            },
          ],
        });
        return { status: Number(res.body?.Operations?.[0]?.status ?? res.status), text: res.text };
      },
    ],
  ];

  for (const [path, change] of changes) {
    it(`a change of address by ${path} ends every link mailed to the old one: none sets a password or verifies the new address`, async () => {
      const mal = await person();
      const links = await mailAllLinks(mal);
      const victim = `${unique('victim')}@example.com`;
      const changed = await change(mal.userId, mal.userName, victim);
      assert.ok(changed.status === 200 || changed.status === 204, `${changed.status} ${changed.text}`);

      const followed = await follow(links);
      for (const [kind, res] of Object.entries(followed)) {
        assert.equal(res.status, 400, `the ${kind} link is dead: ${res.status}`);
        assert.match(res.text, /data-error="invalid_link"/);
      }
      assert.deepEqual(await emailOf(mal.userId), { email: victim, isEmailVerified: false }, 'the new address is not verified');
      assert.equal(await codesOf(mal.userId), 0, 'no code of the user is left');
      const verified = await searchEvents(svc, { event_types: ['user.human.email.verified', 'user.human.password.changed'], aggregate_id: mal.userId });
      assert.deepEqual(
        verified.map((e) => e.type.type),
        [],
        'nothing was verified or set by a link',
      );
    });
  }

  it('the management API answers 409 for a second user holding a verified address, and stores nothing', async () => {
    const holder = await person({ verified: true });
    const userName = unique('second');
    const created = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'S', lastName: 'S' },
      email: { email: holder.email.toUpperCase(), isEmailVerified: true },
      password: PASSWORD,
    });
    assert.equal(created.status, 409, created.text);
    assert.match(created.body.message, /verified for another user of the organization/);
    const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND user_name_lower = ?', [orgId, userName.toLowerCase()]);
    assert.equal(Number(row.n), 0, 'no user was created');

    const other = await person();
    const patched = await api('PATCH', `/users/${other.userId}`, { email: { email: holder.email, isEmailVerified: true } });
    assert.equal(patched.status, 409, patched.text);
    assert.deepEqual(await emailOf(other.userId), { email: other.email, isEmailVerified: false }, 'the user is unchanged');

    // The same address unverified is no second verified holder: it may be set.
    assert.equal((await api('PATCH', `/users/${other.userId}`, { email: { email: holder.email } })).status, 200);
    assert.deepEqual(await emailOf(other.userId), { email: holder.email, isEmailVerified: false });
  });

  it('two requests verifying one address for two users at once: one succeeds, the other is 409', async () => {
    for (let round = 0; round < 5; round++) {
      const address = `${unique('race')}@example.com`;
      const [one, two] = [await person({ email: address }), await person({ email: address })];
      const answers = await Promise.all([one, two].map((p) => api('PATCH', `/users/${p.userId}`, { email: { email: address, isEmailVerified: true } })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
      const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND email_lower = ? AND email_verified = 1', [orgId, address]);
      assert.equal(Number(row.n), 1, 'one verified holder');
    }
  });

  it('a link to an address another user meanwhile holds verified: verification refused with a page (nothing changed), a reset sets the password only', async () => {
    const shared = `${unique('shared')}@example.com`;
    const first = await person({ email: shared });
    const links = await mailAllLinks(first);
    await person({ email: shared, verified: true });

    const browser = new LoginClient(svc.url);
    const refused = await browser.post('/ui/login/email-verification', { code: codeOf(links['email-verification']) });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.text, /data-error="email_verified_elsewhere"/);
    assert.match(refused.text, /already confirmed for another account of your organization/);
    assert.equal((await emailOf(first.userId)).isEmailVerified, false);
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM user_codes WHERE user_id = ? AND purpose = 'email_verification'`, [first.userId]);
    assert.equal(Number(row.n), 1, 'the code was not used');
    const again = await api('POST', `/users/${first.userId}/email/verify`, {});
    assert.equal(again.status, 409, 'an administrator is told at once that no link could verify it');
    assert.match(again.body.message, /verified for another user of the organization/);

    const reset = await browser.post('/ui/login/password-reset', {
      code: codeOf(links['password-reset']),
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    });
    assert.equal(reset.status, 200, reset.text);
    assert.match(reset.text, /data-password-set/);
    assert.equal((await emailOf(first.userId)).isEmailVerified, false, 'the reset did not verify an address another user holds verified');
    const events = await searchEvents(svc, { event_types: ['user.human.email.verified'], aggregate_id: first.userId });
    assert.equal(events.length, 0);
  });

  it('an import or SCIM bringing an address verified for another user stores it unverified; the first of an import keeps its flag', async () => {
    const holder = await person({ verified: true });
    const twice = `${unique('twice')}@example.com`;
    const items = [
      humanUser(unique('imp-a'), unique('imp-a'), { email: { email: holder.email, isEmailVerified: true } }),
      humanUser(unique('imp-b'), unique('imp-b'), { email: { email: twice, isEmailVerified: true } }),
      humanUser(unique('imp-c'), unique('imp-c'), { email: { email: twice.toUpperCase(), isEmailVerified: true } }),
    ];
    const response = await postImport(svc, importBody([{ orgId, humanUsers: items }]));
    assert.deepEqual(
      response.success.orgs.find((o) => o.orgId === orgId)?.humanUserIds,
      items.map((i) => i.userId),
    );
    const stored = await Promise.all(items.map((i) => emailOf(i.userId)));
    assert.deepEqual(stored, [
      { email: holder.email, isEmailVerified: false },
      { email: twice, isEmailVerified: true },
      { email: twice.toUpperCase(), isEmailVerified: false },
    ]);

    const byScim = await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: unique('scim'), emails: [{ value: holder.email, primary: true }] });
    assert.equal(byScim.status, 201, byScim.text);
    assert.deepEqual(await emailOf(byScim.body.id), { email: holder.email, isEmailVerified: false });
  });
});
