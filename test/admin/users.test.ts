import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import bcrypt from 'bcrypt';
import { unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, assertNotStored, badRequest, bool, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

function human(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    userName: unique('ada'),
    profile: { firstName: 'Ada', lastName: 'Lovelace' },
    email: { email: 'ada@example.com', isEmailVerified: false },
    ...overrides,
  };
}

function machine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { userName: unique('robot'), name: 'Deploy robot', accessTokenType: 'opaque', ...overrides };
}

describe('management API: human and machine users', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const humans = (orgId: string) => `/management/v1/orgs/${orgId}/users/human`;
  const machines = (orgId: string) => `/management/v1/orgs/${orgId}/users/machine`;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  describe('POST …/users/human', () => {
    it('creates a human user with every field: 201 {userId}, the row as sent, a bcrypt hash, and user.human.added', async () => {
      const password = 'correct horse battery staple';
      const body = {
        userName: unique('Ada.Lovelace'),
        profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Countess of Lovelace', preferredLanguage: 'de-CH' },
        email: { email: 'Ada@Example.com', isEmailVerified: true },
        phone: { phone: '+41 79 123 45 67', isPhoneVerified: true },
        password,
      };
      const res = await svc.api('POST', humans(a.org.id), { token: a.manager.token, body });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body), ['userId']);
      const { userId } = res.body;

      const user = await row(svc, 'SELECT * FROM users WHERE id = ?', [userId]);
      assert.equal(user.org_id, a.org.id);
      assert.equal(user.type, 'human');
      assert.equal(user.state, 'active');
      assert.equal(user.user_name, body.userName);
      assert.equal(user.given_name, 'Ada');
      assert.equal(user.family_name, 'Lovelace');
      assert.equal(user.display_name, 'Countess of Lovelace');
      assert.equal(user.preferred_language, 'de-CH');
      assert.equal(user.email, 'Ada@Example.com');
      assert.equal(bool(user.email_verified), true);
      assert.equal(user.phone, '+41791234567');
      assert.equal(bool(user.phone_verified), true);
      assert.equal(user.access_token_type, null);

      assert.match(user.password_hash, /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/, 'a bcrypt hash is stored');
      assert.equal(await bcrypt.compare(password, user.password_hash), true);
      assert.equal(await bcrypt.compare('wrong password', user.password_hash), false);
      await assertNotStored(svc, password);

      const event = await theEvent(svc, 'user.human.added', userId);
      assert.equal(event.aggregate.type.type, 'user');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.manager.userId);
      assert.deepEqual(event.payload, {
        userName: body.userName,
        firstName: 'Ada',
        lastName: 'Lovelace',
        displayName: 'Countess of Lovelace',
        preferredLanguage: 'de-CH',
        email: 'Ada@Example.com',
        phone: '+41791234567',
      });
      assertNoSecretsIn(event.payload, [password, user.password_hash]);
    });

    it('fills the defaults: display name from the names, the instance language, unverified email, no phone, no password', async () => {
      const body = human({ email: { email: 'grace@example.com' } });
      const res = await svc.api('POST', humans(a.org.id), { token: a.manager.token, body });
      assert.equal(res.status, 201, res.text);
      const user = await row(svc, 'SELECT * FROM users WHERE id = ?', [res.body.userId]);
      assert.equal(user.display_name, 'Ada Lovelace');
      assert.equal(user.preferred_language, 'en');
      assert.equal(bool(user.email_verified), false);
      assert.equal(user.phone, null);
      assert.equal(bool(user.phone_verified), false);
      assert.equal(user.password_hash, null);
      const event = await theEvent(svc, 'user.human.added', res.body.userId);
      assert.ok(!('phone' in event.payload));
    });

    it('accepts a password of exactly 72 bytes, counting UTF-8 bytes rather than characters', async () => {
      const password = 'ü'.repeat(36);
      const res = await svc.api('POST', humans(a.org.id), { token: a.manager.token, body: human({ password }) });
      assert.equal(res.status, 201, res.text);
      const user = await row(svc, 'SELECT password_hash FROM users WHERE id = ?', [res.body.userId]);
      assert.equal(await bcrypt.compare(password, user.password_hash), true);
    });

    it('treats null for an optional field as not sent', async () => {
      const res = await svc.api('POST', humans(a.org.id), {
        token: a.manager.token,
        body: human({ profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: null, preferredLanguage: null }, phone: null, password: null }),
      });
      assert.equal(res.status, 201, res.text);
      const user = await row(svc, 'SELECT display_name, preferred_language, phone, password_hash FROM users WHERE id = ?', [res.body.userId]);
      assert.deepEqual({ ...user }, { display_name: 'Ada Lovelace', preferred_language: 'en', phone: null, password_hash: null });
    });

    it('stores phone numbers compact and E.164 where the country is known', async () => {
      const cases: Array<[string, string]> = [
        ['+41 79 123 45 67', '+41791234567'],
        ['+1 (415) 555-2671', '+14155552671'],
        ['+49-30-1234-5678', '+493012345678'],
        ['079 123 45 67', '0791234567'],
      ];
      for (const [given, stored] of cases) {
        const res = await svc.api('POST', humans(a.org.id), { token: a.manager.token, body: human({ phone: { phone: given } }) });
        assert.equal(res.status, 201, res.text);
        const user = await row(svc, 'SELECT phone, phone_verified FROM users WHERE id = ?', [res.body.userId]);
        assert.equal(user.phone, stored, given);
        assert.equal(bool(user.phone_verified), false);
      }
    });

    it('answers bad bodies with 400 naming each field, nested ones by their path, and changes nothing', async () => {
      const omit = (field: string) => {
        const body = human();
        delete body[field];
        return body;
      };
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [omit('userName'), ['userName']],
        [human({ userName: 42 }), ['userName']],
        [human({ userName: '' }), ['userName']],
        [human({ userName: 'ada lovelace' }), ['userName']],
        [human({ userName: 'x'.repeat(256) }), ['userName']],
        [omit('profile'), ['profile']],
        [human({ profile: 'Ada Lovelace' }), ['profile']],
        [human({ profile: [] }), ['profile']],
        [human({ profile: [{ firstName: 'Ada', lastName: 'Lovelace' }] }), ['profile']],
        [human({ profile: { lastName: 'Lovelace' } }), ['profile.firstName']],
        [human({ profile: { firstName: '', lastName: 'Lovelace' } }), ['profile.firstName']],
        [human({ profile: { firstName: 'Ada' } }), ['profile.lastName']],
        [human({ profile: { firstName: 1, lastName: 2 } }), ['profile.firstName', 'profile.lastName']],
        [human({ profile: { firstName: 'Ada', lastName: 'L', displayName: 42 } }), ['profile.displayName']],
        [human({ profile: { firstName: 'Ada', lastName: 'L', preferredLanguage: 'english please' } }), ['profile.preferredLanguage']],
        [human({ profile: { firstName: 'Ada', lastName: 'L', nickName: 'Ada' } }), ['profile.nickName']],
        [omit('email'), ['email']],
        [human({ email: 'ada@example.com' }), ['email']],
        [human({ email: {} }), ['email.email']],
        [human({ email: { email: 'not-an-email' } }), ['email.email']],
        [human({ email: { email: 'ada@example.com', isEmailVerified: 'yes' } }), ['email.isEmailVerified']],
        [human({ email: { email: 'ada@example.com', verified: true } }), ['email.verified']],
        [human({ phone: '+41 79 123 45 67' }), ['phone']],
        [human({ phone: {} }), ['phone.phone']],
        [human({ phone: { phone: 'call me maybe' } }), ['phone.phone']],
        [human({ phone: { phone: '+41 79 123 45 67', isPhoneVerified: 'no' } }), ['phone.isPhoneVerified']],
        [human({ password: 12345678 }), ['password']],
        [human({ password: 'short' }), ['password']],
        [human({ password: 'x'.repeat(73) }), ['password']],
        // 40 characters but 80 bytes: bcrypt would silently ignore everything past byte 72.
        [human({ password: 'ü'.repeat(40) }), ['password']],
        [human({ state: 'locked' }), ['state']],
        [human({ passwordHash: '$2b$04$abcdefghijklmnopqrstuuMX0rC0n9pXRQ1sI1sI1sI1sI1sI1sI1' }), ['passwordHash']],
        [human({ id: randomUUID() }), ['id']],
        [{ userName: '', profile: { lastName: 'L' }, email: { email: 'nope' }, extra: 1 }, ['userName', 'profile.firstName', 'email.email', 'extra']],
      ];
      for (const [body, fields] of cases) {
        await badRequest(svc, fields, () => svc.api('POST', humans(a.org.id), { token: a.manager.token, body }), JSON.stringify(body));
      }
    });

    it('refuses a userName taken in the organization, compared case-insensitively (409), but not in another one', async () => {
      const userName = unique('Grace');
      const first = await svc.api('POST', humans(a.org.id), { token: a.manager.token, body: human({ userName }) });
      assert.equal(first.status, 201, first.text);
      for (const variant of [userName, userName.toLowerCase(), userName.toUpperCase()]) {
        const res = await refused(svc, 409, () => svc.api('POST', humans(a.org.id), { token: a.manager.token, body: human({ userName: variant }) }), variant);
        assert.match(res.body.message, /already taken/);
      }
      // Humans and machines share one namespace per organization.
      await refused(svc, 409, () => svc.api('POST', machines(a.org.id), { token: a.manager.token, body: machine({ userName: userName.toLowerCase() }) }));

      const other = await svc.api('POST', humans(b.org.id), { token: b.manager.token, body: human({ userName: userName.toLowerCase() }) });
      assert.equal(other.status, 201, other.text);
      const rows = await svc.dataSource.query('SELECT org_id, user_name FROM users WHERE user_name_lower = ? ORDER BY org_id', [userName.toLowerCase()]);
      assert.deepEqual(
        rows.map((r: { org_id: string; user_name: string }) => [r.org_id, r.user_name]).sort(),
        [
          [a.org.id, userName],
          [b.org.id, userName.toLowerCase()],
        ].sort(),
      );
    });

    it('lets an ORG_OWNER create users (ORG_OWNER holds ORG_USER_MANAGER) and an IAM_OWNER in any organization', async () => {
      const byOwner = await svc.api('POST', humans(a.org.id), { token: a.owner.token, body: human() });
      assert.equal(byOwner.status, 201, byOwner.text);
      assert.equal((await theEvent(svc, 'user.human.added', byOwner.body.userId)).editor.userId, a.owner.userId);
      const byAdmin = await svc.api('POST', humans(b.org.id), { token: svc.adminToken, body: human() });
      assert.equal(byAdmin.status, 201, byAdmin.text);
      assert.equal((await row(svc, 'SELECT org_id FROM users WHERE id = ?', [byAdmin.body.userId])).org_id, b.org.id);
    });

    it('answers 401 without a valid token, and changes nothing', async () => {
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('POST', humans(a.org.id), { ...tokenOption(token), body: human() }));
      }
    });

    it('answers 403 to a member without roles, and changes nothing', async () => {
      const res = await refused(svc, 403, () => svc.api('POST', humans(a.org.id), { token: a.member.token, body: human() }));
      assert.match(res.body.message, /ORG_USER_MANAGER/);
    });

    it("answers 404 on another organization's path and for unknown organizations, and changes nothing", async () => {
      for (const caller of [a.owner, a.manager, a.member]) {
        await refused(svc, 404, () => svc.api('POST', humans(b.org.id), { token: caller.token, body: human() }));
      }
      await refused(svc, 404, () => svc.api('POST', humans(randomUUID()), { token: svc.adminToken, body: human() }));
    });
  });

  describe('GET …/users', () => {
    it('is 404 for an unknown organization, also for an IAM_OWNER, as every route under it', async () => {
      const unknown = await svc.api('GET', `/management/v1/orgs/${randomUUID()}/users`, { token: svc.adminToken });
      assert.equal(unknown.status, 404, unknown.text);
      assert.match(unknown.body.message, /organization/);
      const fresh = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: unique('empty-org') } });
      assert.equal(fresh.status, 201, fresh.text);
      const empty = await svc.api('GET', `/management/v1/orgs/${fresh.body.id}/users?query=${unique('nobody')}`, { token: svc.adminToken });
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body, { users: [], total: 0 }, 'a known organization with no match is an empty page');
    });
  });

  describe('POST …/users/machine', () => {
    it('creates a machine user: 201 {userId}, the row as sent, and user.machine.added', async () => {
      const body = { userName: unique('Deployer'), name: 'Deploy robot', description: 'Ships releases', accessTokenType: 'jwt' };
      const res = await svc.api('POST', machines(a.org.id), { token: a.manager.token, body });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body), ['userId']);
      const user = await row(svc, 'SELECT * FROM users WHERE id = ?', [res.body.userId]);
      assert.equal(user.org_id, a.org.id);
      assert.equal(user.type, 'machine');
      assert.equal(user.state, 'active');
      assert.equal(user.user_name, body.userName);
      assert.equal(user.display_name, 'Deploy robot');
      assert.equal(user.description, 'Ships releases');
      assert.equal(user.access_token_type, 'jwt');
      assert.equal(user.password_hash, null);
      assert.equal(user.email, null);

      const event = await theEvent(svc, 'user.machine.added', res.body.userId);
      assert.equal(event.aggregate.type.type, 'user');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.manager.userId);
      assert.deepEqual(event.payload, { userName: body.userName, name: 'Deploy robot', description: 'Ships releases', accessTokenType: 'jwt' });
      assertNoSecretsIn(event.payload);
    });

    it('defaults the access token type to opaque and the description to none', async () => {
      const userName = unique('plain');
      const res = await svc.api('POST', machines(a.org.id), { token: a.manager.token, body: { userName, name: 'Plain robot' } });
      assert.equal(res.status, 201, res.text);
      const user = await row(svc, 'SELECT access_token_type, description FROM users WHERE id = ?', [res.body.userId]);
      assert.deepEqual({ ...user }, { access_token_type: 'opaque', description: null });
      const event = await theEvent(svc, 'user.machine.added', res.body.userId);
      assert.deepEqual(event.payload, { userName, name: 'Plain robot', description: null, accessTokenType: 'opaque' });
    });

    it('answers bad bodies with 400 naming each field, and changes nothing', async () => {
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ name: 'robot' }, ['userName']],
        [machine({ userName: 'robot\tone' }), ['userName']],
        [machine({ userName: ['robot'] }), ['userName']],
        [{ userName: unique('robot') }, ['name']],
        [machine({ name: '' }), ['name']],
        [machine({ name: 42 }), ['name']],
        [machine({ description: 42 }), ['description']],
        [machine({ description: 'x'.repeat(501) }), ['description']],
        [machine({ accessTokenType: 'bearer' }), ['accessTokenType']],
        [machine({ accessTokenType: 'JWT' }), ['accessTokenType']],
        [machine({ password: 'a machine has no password' }), ['password']],
        [machine({ profile: { firstName: 'R', lastName: 'Obot' } }), ['profile']],
        [{ userName: '', name: '', accessTokenType: 'x', clientSecret: 's' }, ['userName', 'name', 'accessTokenType', 'clientSecret']],
      ];
      for (const [body, fields] of cases) {
        await badRequest(svc, fields, () => svc.api('POST', machines(a.org.id), { token: a.manager.token, body }), JSON.stringify(body));
      }
    });

    it('refuses a userName taken in the organization, compared case-insensitively (409), but not in another one', async () => {
      const userName = unique('Robo');
      assert.equal((await svc.api('POST', machines(a.org.id), { token: a.manager.token, body: machine({ userName }) })).status, 201);
      await refused(svc, 409, () => svc.api('POST', machines(a.org.id), { token: a.manager.token, body: machine({ userName: userName.toUpperCase() }) }));
      await refused(svc, 409, () => svc.api('POST', humans(a.org.id), { token: a.manager.token, body: human({ userName: userName.toLowerCase() }) }));
      assert.equal((await svc.api('POST', machines(b.org.id), { token: b.manager.token, body: machine({ userName }) })).status, 201);
    });

    it('answers 401, 403 and 404 like every management route, and changes nothing', async () => {
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('POST', machines(a.org.id), { ...tokenOption(token), body: machine() }));
      }
      await refused(svc, 403, () => svc.api('POST', machines(a.org.id), { token: a.member.token, body: machine() }));
      await refused(svc, 404, () => svc.api('POST', machines(b.org.id), { token: a.owner.token, body: machine() }));
      await refused(svc, 404, () => svc.api('POST', machines(randomUUID()), { token: svc.adminToken, body: machine() }));
    });
  });
});
