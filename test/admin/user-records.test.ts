import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, searchEvents, unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, badRequest, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';
import { humanUser, importBody, importedIds, postImport, userErrors } from '../import/import.helpers.js';

/**
 * The management API's reads, changes and deletion of users (docs/product-rules.md, "API"), driven as a
 * console drives them: list and search with paging, one user, a partial change, a deletion.
 */
describe('management API: read, change and delete users', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const users = (orgId: string) => `/management/v1/orgs/${orgId}/users`;
  const user = (orgId: string, userId: string) => `${users(orgId)}/${userId}`;

  async function newHuman(org: OrgSetup, overrides: Record<string, unknown> = {}): Promise<string> {
    // A verified address names one user of an organization (docs/product-rules.md, "Verified addresses"): one each.
    const userName = unique('ada');
    const body = {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      ...overrides,
    };
    const res = await svc.api('POST', `${users(org.org.id)}/human`, { token: org.manager.token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  async function newMachine(org: OrgSetup, overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await svc.api('POST', `${users(org.org.id)}/machine`, {
      token: org.manager.token,
      body: { userName: unique('robot'), name: 'Robot', ...overrides },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  describe('GET …/users', () => {
    let org: OrgSetup;
    before(async () => {
      org = await setUpOrg(svc);
      await newHuman(org, {
        userName: 'grace.hopper',
        profile: { firstName: 'Grace', lastName: 'Hopper', displayName: 'Amazing Grace' },
        email: { email: 'Grace@Navy.example' },
      });
      await newHuman(org, { userName: 'ada.l', profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: 'countess@analytical.example' } });
      await newHuman(org, { userName: 'Zoë', profile: { firstName: 'Zoë', lastName: 'Ärger' }, email: { email: 'zoe@example.com' } });
      await newHuman(org, { userName: '100%_sure', profile: { firstName: 'Per', lastName: 'Cent' }, email: { email: 'p@example.com' } });
      await newMachine(org, { userName: 'deploy-bot', name: 'Deploy Robot' });
    });

    const names = (res: { body: { users: { userName: string }[] } }) => res.body.users.map((u) => u.userName);

    it('lists every user of the organization ordered by user name, with total, type, state and no secrets', async () => {
      const res = await svc.api('GET', users(org.org.id), { token: org.manager.token });
      assert.equal(res.status, 200, res.text);
      // Three callers of setUpOrg (machines) and five made here.
      assert.equal(res.body.total, 8);
      assert.equal(res.body.users.length, 8);
      const sorted = [...names(res)].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1));
      assert.deepEqual(names(res), sorted);
      const grace = res.body.users.find((u: { userName: string }) => u.userName === 'grace.hopper');
      assert.deepEqual(Object.keys(grace).sort(), ['displayName', 'email', 'state', 'type', 'userId', 'userName']);
      assert.equal(grace.type, 'human');
      assert.equal(grace.state, 'active');
      assert.equal(grace.displayName, 'Amazing Grace');
      assert.equal(grace.email, 'Grace@Navy.example');
      const bot = res.body.users.find((u: { userName: string }) => u.userName === 'deploy-bot');
      assert.deepEqual(bot.type, 'machine');
      assert.equal(bot.displayName, 'Deploy Robot');
      assert.equal(bot.email, undefined);
      assertNoSecretsIn(res.body);
    });

    it('searches user names, names and e-mail addresses case-insensitively, as substrings', async () => {
      const search = async (query: string) =>
        names(await svc.api('GET', `${users(org.org.id)}?query=${encodeURIComponent(query)}`, { token: org.manager.token }));
      assert.deepEqual(await search('HOPPER'), ['grace.hopper'], 'family name');
      assert.deepEqual(await search('amazing'), ['grace.hopper'], 'display name');
      assert.deepEqual(await search('navy.EXAMPLE'), ['grace.hopper'], 'e-mail domain');
      assert.deepEqual(await search('ovelac'), ['ada.l'], 'inside a name');
      assert.deepEqual(await search('ADA.'), ['ada.l'], 'user name');
      assert.deepEqual(await search('robot'), ['deploy-bot'], "a machine's name");
      assert.deepEqual(await search('äRGER'), ['Zoë'], 'non-ASCII letters fold as well');
      assert.deepEqual(await search('zoË'), ['Zoë']);
      assert.deepEqual(await search('0%_'), ['100%_sure'], '% and _ match literally');
      assert.deepEqual(await search('%'), ['100%_sure']);
      assert.deepEqual(await search('nobody-at-all'), []);
      const res = await svc.api('GET', `${users(org.org.id)}?query=ada`, { token: org.manager.token });
      assert.equal(res.body.total, 1);
    });

    it('finds users made and changed through SCIM as well', async () => {
      const scim = '/scim/v2/' + org.org.id + '/Users';
      const body = {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: unique('scim'),
        name: { givenName: 'Hedy', familyName: 'Lamarr' },
        emails: [{ value: 'hedy@film.example', primary: true }],
      };
      const created = await svc.api('POST', scim, { token: org.manager.token, body });
      assert.equal(created.status, 201, created.text);
      const search = async (query: string) =>
        (await svc.api('GET', `${users(org.org.id)}?query=${query}`, { token: org.manager.token })).body.users.map((u: { userId: string }) => u.userId);
      assert.deepEqual(await search('lamarr'), [created.body.id]);
      const replaced = await svc.api('PUT', `${scim}/${created.body.id}`, {
        token: org.manager.token,
        body: { ...body, name: { givenName: 'Hedwig', familyName: 'Kiesler' } },
      });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual(await search('lamarr'), []);
      assert.deepEqual(await search('kiesler'), [created.body.id]);
      assert.equal((await svc.api('DELETE', `${scim}/${created.body.id}`, { token: org.manager.token })).status, 204);
    });

    it('pages with limit and offset: stable order, total of all pages', async () => {
      const all = names(await svc.api('GET', `${users(org.org.id)}?limit=1000`, { token: org.manager.token }));
      const seen: string[] = [];
      for (let offset = 0; offset < all.length; offset += 3) {
        const res = await svc.api('GET', `${users(org.org.id)}?limit=3&offset=${offset}`, { token: org.manager.token });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.total, all.length, `total at offset ${offset}`);
        seen.push(...names(res));
      }
      assert.deepEqual(seen, all);
      const past = await svc.api('GET', `${users(org.org.id)}?limit=3&offset=100`, { token: org.manager.token });
      assert.deepEqual(past.body, { users: [], total: all.length });
      // A full page of a search: its total is counted.
      const humans = await svc.api('GET', `${users(org.org.id)}?query=example&limit=2`, { token: org.manager.token });
      assert.equal(humans.body.users.length, 2);
      assert.equal(humans.body.total, 4);
    });

    it('refuses bad paging and unknown parameters with 400', async () => {
      for (const [query, field] of [
        ['query=a%0Ab', 'query'],
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=abc', 'limit'],
        ['offset=-1', 'offset'],
        ['offset=1.5', 'offset'],
        ['sort=name', 'sort'],
        [`query=${'x'.repeat(201)}`, 'query'],
      ]) {
        await badRequest(svc, [field], () => svc.api('GET', `${users(org.org.id)}?${query}`, { token: org.manager.token }), query);
      }
    });

    it("shows only the caller's organization: another organization's users are 404, and never listed", async () => {
      await refused(svc, 404, () => svc.api('GET', users(org.org.id), { token: a.manager.token }));
      const listed = await svc.api('GET', `${users(a.org.id)}?query=hopper`, { token: a.manager.token });
      assert.deepEqual(listed.body, { users: [], total: 0 });
    });
  });

  describe('GET …/users/{userId}', () => {
    it('reads a human: userName, profile, email, phone, state; never a hash', async () => {
      const userId = await newHuman(a, {
        profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Countess', preferredLanguage: 'de-CH' },
        email: { email: 'ada@example.com', isEmailVerified: true },
        phone: { phone: '+41 79 123 45 67', isPhoneVerified: true },
        password: 'Correct-Horse-9',
      });
      const res = await svc.api('GET', user(a.org.id, userId), { token: a.manager.token });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        userId,
        type: 'human',
        userName: res.body.userName,
        state: 'active',
        profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Countess', preferredLanguage: 'de-CH' },
        email: { email: 'ada@example.com', isEmailVerified: true },
        phone: { phone: '+41791234567', isPhoneVerified: true },
      });
      assertNoSecretsIn(res.body, ['Correct-Horse-9']);
    });

    it('reads a machine: userName, name, description, accessTokenType, state', async () => {
      const userName = unique('robot');
      const userId = await newMachine(a, { userName, name: 'CI', description: 'builds', accessTokenType: 'jwt' });
      const res = await svc.api('GET', user(a.org.id, userId), { token: a.manager.token });
      assert.deepEqual(res.body, { userId, type: 'machine', userName, state: 'active', name: 'CI', description: 'builds', accessTokenType: 'jwt' });
    });

    it('401 without a valid token, 403 without the role, 404 for unknown users and other organizations', async () => {
      const userId = await newHuman(a);
      for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api('GET', user(a.org.id, userId), tokenOption(token)));
      await refused(svc, 403, () => svc.api('GET', user(a.org.id, userId), { token: a.member.token }));
      await refused(svc, 404, () => svc.api('GET', user(a.org.id, 'no-such-user'), { token: a.manager.token }));
      await refused(svc, 404, () => svc.api('GET', user(b.org.id, userId), { token: b.manager.token }), "another organization's user by its id");
      await refused(svc, 404, () => svc.api('GET', user(a.org.id, userId), { token: b.manager.token }), 'an organization outside the caller');
    });
  });

  describe('PATCH …/users/{userId}', () => {
    it('changes only the fields sent, answers the user, and writes the SCIM events for what changed', async () => {
      const userId = await newHuman(a, { phone: { phone: '+41 79 123 45 67', isPhoneVerified: true } });
      const userName = unique('countess');
      const res = await svc.api('PATCH', user(a.org.id, userId), {
        token: a.manager.token,
        body: { userName, profile: { lastName: 'King', displayName: 'Countess of Lovelace' }, email: { email: 'ada@king.example' } },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.userName, userName);
      assert.deepEqual(res.body.profile, { firstName: 'Ada', lastName: 'King', displayName: 'Countess of Lovelace', preferredLanguage: 'en' });
      assert.deepEqual(res.body.email, { email: 'ada@king.example', isEmailVerified: false }, 'a new address is unverified unless said otherwise');
      assert.deepEqual(res.body.phone, { phone: '+41791234567', isPhoneVerified: true }, 'untouched');
      assert.deepEqual((await svc.api('GET', user(a.org.id, userId), { token: a.manager.token })).body, res.body);

      const stored = await row(svc, 'SELECT user_name_lower, email_lower FROM users WHERE id = ?', [userId]);
      assert.equal(stored.user_name_lower, userName.toLowerCase());
      assert.equal(stored.email_lower, 'ada@king.example');
      const profile = await theEvent(svc, 'user.human.profile.changed', userId);
      assert.equal(profile.editor.userId, a.manager.userId);
      assert.equal(profile.aggregate.resourceOwner, a.org.id);
      assert.deepEqual(profile.payload, { userName, familyName: 'King', displayName: 'Countess of Lovelace' });
      const email = await theEvent(svc, 'user.human.email.changed', userId);
      assert.equal(email.payload.email, 'ada@king.example');
      assert.equal((await searchEvents(svc, { event_types: ['user.human.phone.changed'], aggregate_id: userId })).length, 0);
      const found = await svc.api('GET', `${users(a.org.id)}?query=${encodeURIComponent('ada@KING')}`, { token: a.manager.token });
      assert.deepEqual(
        found.body.users.map((u: { userId: string }) => u.userId),
        [userId],
        'the search follows the change',
      );
      // The new login name is what SCIM and login search by.
      const scim = await svc.api('GET', `/scim/v2/${a.org.id}/Users?filter=${encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)}`, {
        token: a.manager.token,
      });
      assert.equal(scim.body.totalResults, 1);
    });

    it('sets verification flags, replaces and removes the phone number', async () => {
      const userId = await newHuman(a, { email: { email: 'x@example.com', isEmailVerified: false } });
      const verified = await svc.api('PATCH', user(a.org.id, userId), {
        token: a.manager.token,
        body: { email: { email: 'x@example.com', isEmailVerified: true }, phone: { phone: '+41 79 000 00 00', isPhoneVerified: true } },
      });
      assert.equal(verified.status, 200, verified.text);
      assert.deepEqual(verified.body.email, { email: 'x@example.com', isEmailVerified: true });
      assert.deepEqual(verified.body.phone, { phone: '+41790000000', isPhoneVerified: true });
      assert.equal((await theEvent(svc, 'user.human.email.changed', userId)).payload.isEmailVerified, true);
      const removed = await svc.api('PATCH', user(a.org.id, userId), { token: a.manager.token, body: { phone: null } });
      assert.equal(removed.status, 200, removed.text);
      assert.equal(removed.body.phone, undefined);
      assert.equal((await searchEvents(svc, { event_types: ['user.human.phone.changed'], aggregate_id: userId })).length, 2);
    });

    it("changes a machine's name, description and token type with user.machine.changed", async () => {
      const userId = await newMachine(a, { description: 'old' });
      const res = await svc.api('PATCH', user(a.org.id, userId), {
        token: a.manager.token,
        body: { name: 'Renamed', description: null, accessTokenType: 'jwt' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'Renamed');
      assert.equal(res.body.description, null);
      assert.equal(res.body.accessTokenType, 'jwt');
      const event = await theEvent(svc, 'user.machine.changed', userId);
      assert.deepEqual(event.payload, { name: 'Renamed', description: null, accessTokenType: 'jwt' });
      assert.equal(event.editor.userId, a.manager.userId);
    });

    it('a change that changes nothing answers 200 and writes nothing', async () => {
      const userId = await newHuman(a, { email: { email: 'unchanged@example.com', isEmailVerified: true } });
      const before = await row(svc, 'SELECT version FROM users WHERE id = ?', [userId]);
      for (const body of [{}, { profile: { firstName: 'Ada' } }, { email: { email: 'unchanged@example.com', isEmailVerified: true } }]) {
        const events = (await searchEvents(svc, { aggregate_id: userId })).length;
        const res = await svc.api('PATCH', user(a.org.id, userId), { token: a.manager.token, body });
        assert.equal(res.status, 200, res.text);
        assert.equal((await searchEvents(svc, { aggregate_id: userId })).length, events, JSON.stringify(body));
      }
      assert.deepEqual(await row(svc, 'SELECT version FROM users WHERE id = ?', [userId]), before);
    });

    it('refuses invalid and unknown fields, fields of the other user type and a taken user name; nothing changes', async () => {
      const humanId = await newHuman(a);
      const machineId = await newMachine(a);
      const taken = (await svc.api('GET', user(a.org.id, machineId), { token: a.manager.token })).body.userName;
      const send = (userId: string, body: unknown) => () => svc.api('PATCH', user(a.org.id, userId), { token: a.manager.token, body });
      await badRequest(svc, ['userName'], send(humanId, { userName: 'has space' }));
      await badRequest(svc, ['userName'], send(humanId, { userName: null }));
      await badRequest(svc, ['profile.firstName'], send(humanId, { profile: { firstName: '  ' } }));
      await badRequest(svc, ['profile.preferredLanguage'], send(humanId, { profile: { preferredLanguage: 'not a tag' } }));
      await badRequest(svc, ['email.email'], send(humanId, { email: { email: 'nope' } }));
      await badRequest(svc, ['email'], send(humanId, { email: null }));
      await badRequest(svc, ['phone.phone'], send(humanId, { phone: { phone: 'abc' } }));
      await badRequest(svc, ['password'], send(humanId, { password: 'Another-Password-1' }));
      await badRequest(svc, ['unknown'], send(humanId, { unknown: 1 }));
      await badRequest(svc, ['name'], send(humanId, { name: 'machine field' }));
      await badRequest(svc, ['accessTokenType'], send(machineId, { accessTokenType: 'saml' }));
      await badRequest(svc, ['profile', 'email'], send(machineId, { profile: { firstName: 'X' }, email: { email: 'x@example.com' } }));
      await refused(svc, 409, send(humanId, { userName: taken.toUpperCase() }), 'a user name taken in the organization, in any case');
    });

    it('401, 403 without the role, 404 outside the organization; nothing changes', async () => {
      const userId = await newHuman(a);
      for (const token of INVALID_TOKENS)
        await refused(svc, 401, () => svc.api('PATCH', user(a.org.id, userId), { ...tokenOption(token), body: { profile: { firstName: 'X' } } }));
      await refused(svc, 403, () => svc.api('PATCH', user(a.org.id, userId), { token: a.member.token, body: { profile: { firstName: 'X' } } }));
      await refused(svc, 404, () => svc.api('PATCH', user(b.org.id, userId), { token: b.manager.token, body: { profile: { firstName: 'X' } } }));
    });

    it('403 when the target holds a role the caller lacks (the acting rule), also for a change that changes nothing', async () => {
      const owner = await createCaller(svc, a.org.id, { org: ['ORG_OWNER'] });
      await refused(svc, 403, () => svc.api('PATCH', user(a.org.id, owner.userId), { token: a.manager.token, body: { name: 'Mallory' } }));
      await refused(svc, 403, () => svc.api('PATCH', user(a.org.id, owner.userId), { token: a.manager.token, body: {} }));
      const res = await svc.api('PATCH', user(a.org.id, owner.userId), { token: a.owner.token, body: { name: 'Peer' } });
      assert.equal(res.status, 200, 'peers may act on each other');
    });
  });

  describe('DELETE …/users/{userId}', () => {
    it('deletes the user with user.removed; the id answers 404 and stays reserved', async () => {
      const userId = await newHuman(a);
      const res = await svc.api('DELETE', user(a.org.id, userId), { token: a.manager.token });
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      const event = await theEvent(svc, 'user.removed', userId);
      assert.equal(event.editor.userId, a.manager.userId);
      await refused(svc, 404, () => svc.api('GET', user(a.org.id, userId), { token: a.manager.token }));
      await refused(svc, 404, () => svc.api('DELETE', user(a.org.id, userId), { token: a.manager.token }));
      const listed = await svc.api('GET', `${users(a.org.id)}?limit=1000`, { token: a.manager.token });
      assert.ok(!listed.body.users.some((u: { userId: string }) => u.userId === userId));
      // The import is the one path that takes a given id: it refuses a removed one (OIDC Core §2, `sub` never reassigned).
      const imported = await postImport(svc, importBody([{ orgId: a.org.id, humanUsers: [humanUser(userId, unique('reuse'))] }]));
      assert.deepEqual(importedIds(imported), []);
      assert.match(userErrors(imported).get(userId) ?? '', /removed user and is never given again/);
      await refused(svc, 404, () => svc.api('GET', user(a.org.id, userId), { token: a.manager.token }));
    });

    it('401, 403 without the role or by the acting rule, 404 outside the organization; nothing changes', async () => {
      const userId = await newHuman(a);
      for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api('DELETE', user(a.org.id, userId), tokenOption(token)));
      await refused(svc, 403, () => svc.api('DELETE', user(a.org.id, userId), { token: a.member.token }));
      await refused(svc, 404, () => svc.api('DELETE', user(b.org.id, userId), { token: b.manager.token }));
      await refused(svc, 403, () => svc.api('DELETE', user(a.org.id, a.owner.userId), { token: a.manager.token }));
    });
  });
});
