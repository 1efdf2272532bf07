import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCaller, searchEvents, unique, useService } from '../support/fixtures.js';
import {
  INVALID_TOKENS,
  assertNoSecretsIn,
  assertNotStored,
  assertPrivateKeyNotStored,
  assertRsaKeyMatches,
  badRequest,
  refused,
  row,
  setUpOrg,
  theEvent,
  tokenOption,
} from './helpers.js';
import type { OrgSetup } from './helpers.js';

type Credential = 'secret' | 'keys' | 'pats';
const CREDENTIALS: Credential[] = ['secret', 'keys', 'pats'];

describe('management API: machine credentials (secrets, keys, personal access tokens)', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  /** Machine users without roles, in A and in B, and a human user in A. */
  let robotA: string;
  let robotB: string;
  let humanA: string;
  const path = (orgId: string, userId: string, credential: Credential) => `/management/v1/orgs/${orgId}/users/${userId}/${credential}`;

  async function newMachine(org: OrgSetup, overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/users/machine`, {
      token: org.manager.token,
      body: { userName: unique('robot'), name: 'Robot', ...overrides },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    robotA = await newMachine(a);
    robotB = await newMachine(b);
    const human = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/human`, {
      token: a.manager.token,
      body: { userName: unique('person'), profile: { firstName: 'Pat', lastName: 'Person' }, email: { email: 'pat@example.com' } },
    });
    assert.equal(human.status, 201, human.text);
    humanA = human.body.userId;
  });

  describe('POST …/users/{userId}/secret', () => {
    it('generates a client secret: 201 {clientId, clientSecret}, only a hash stored, user.machine.secret.set written', async () => {
      const res = await svc.api('POST', path(a.org.id, robotA, 'secret'), { token: a.manager.token, body: {} });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['clientId', 'clientSecret']);
      assert.equal(res.body.clientId, robotA, "the machine's client id is its user id");
      assert.ok(res.body.clientSecret.length >= 32, 'a generated secret is high-entropy');

      const stored = await row(svc, 'SELECT secret_hash FROM machine_secrets WHERE user_id = ?', [robotA]);
      assert.ok(stored.secret_hash);
      assert.notEqual(stored.secret_hash, res.body.clientSecret);
      await assertNotStored(svc, res.body.clientSecret);

      const event = await theEvent(svc, 'user.machine.secret.set', robotA);
      assert.equal(event.aggregate.type.type, 'user');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.manager.userId);
      assert.deepEqual(event.payload, {});
    });

    it('replaces the previous secret when called again (also without a body)', async () => {
      const robot = await newMachine(a);
      const first = await svc.api('POST', path(a.org.id, robot, 'secret'), { token: a.manager.token, body: {} });
      const firstHash = (await row(svc, 'SELECT secret_hash FROM machine_secrets WHERE user_id = ?', [robot])).secret_hash;
      const second = await svc.api('POST', path(a.org.id, robot, 'secret'), { token: a.owner.token });
      assert.equal(first.status, 201, first.text);
      assert.equal(second.status, 201, second.text);
      assert.notEqual(first.body.clientSecret, second.body.clientSecret);
      const rows = await svc.dataSource.query('SELECT secret_hash FROM machine_secrets WHERE user_id = ?', [robot]);
      assert.equal(rows.length, 1, 'one secret at a time');
      assert.notEqual(rows[0].secret_hash, firstHash);
      const events = await svc.api('POST', '/admin/v1/events/_search', {
        token: svc.adminToken,
        body: { event_types: ['user.machine.secret.set'], aggregate_id: robot },
      });
      assert.deepEqual(
        events.body.events.map((e: { editor: { userId: string } }) => e.editor.userId),
        [a.owner.userId, a.manager.userId],
      );
    });

    it('answers a body with fields with 400 naming them, and changes nothing', async () => {
      await badRequest(svc, ['clientSecret'], () =>
        svc.api('POST', path(a.org.id, robotA, 'secret'), { token: a.manager.token, body: { clientSecret: 'mine' } }),
      );
    });
  });

  describe('POST …/users/{userId}/keys', () => {
    it('adds a key pair: 201 PEM RSA 2048 private key shown once, public half stored, user.machine.key.added written', async () => {
      const res = await svc.api('POST', path(a.org.id, robotA, 'keys'), { token: a.manager.token, body: {} });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['keyDetails', 'keyId']);
      assert.deepEqual(Object.keys(res.body.keyDetails).sort(), ['key', 'keyId', 'type', 'userId']);
      const { keyId, keyDetails } = res.body;
      assert.equal(keyDetails.type, 'serviceaccount');
      assert.equal(keyDetails.keyId, keyId);
      assert.equal(keyDetails.userId, robotA);

      const stored = await row(svc, 'SELECT owner_type, owner_id, org_id, public_key, expires_at FROM public_keys WHERE id = ?', [keyId]);
      assert.equal(stored.owner_type, 'machine');
      assert.equal(stored.owner_id, robotA);
      assert.equal(stored.org_id, a.org.id);
      assert.equal(stored.expires_at, null);
      assertRsaKeyMatches(keyDetails.key, stored.public_key);
      await assertPrivateKeyNotStored(svc, keyDetails.key);

      const event = await theEvent(svc, 'user.machine.key.added', robotA, (e) => e.payload.keyId === keyId);
      assert.equal(event.aggregate.type.type, 'user');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.manager.userId);
      assert.deepEqual(event.payload, { keyId, keyType: 'RSA', expirationDate: null });
      assertNoSecretsIn(event.payload, [keyDetails.key]);
    });

    it('stores the expiration date it is given', async () => {
      const res = await svc.api('POST', path(a.org.id, robotA, 'keys'), { token: a.manager.token, body: { expirationDate: '2099-12-31T23:59:59Z' } });
      assert.equal(res.status, 201, res.text);
      const stored = await row(svc, 'SELECT expires_at, public_key FROM public_keys WHERE id = ?', [res.body.keyId]);
      assert.equal(Number(stored.expires_at), Date.parse('2099-12-31T23:59:59Z'));
      assertRsaKeyMatches(res.body.keyDetails.key, stored.public_key);
      const event = await theEvent(svc, 'user.machine.key.added', robotA, (e) => e.payload.keyId === res.body.keyId);
      assert.equal(event.payload.expirationDate, '2099-12-31T23:59:59.000Z');
    });

    it('answers bad expiration dates and unknown fields with 400 naming them, and changes nothing', async () => {
      for (const body of [
        { expirationDate: '2001-01-01T00:00:00Z' },
        { expirationDate: new Date(Date.now() - 60_000).toISOString() },
        { expirationDate: 'next year' },
        { expirationDate: 4102444800 },
      ]) {
        await badRequest(
          svc,
          ['expirationDate'],
          () => svc.api('POST', path(a.org.id, robotA, 'keys'), { token: a.manager.token, body }),
          JSON.stringify(body),
        );
      }
      await badRequest(svc, ['publicKey'], () => svc.api('POST', path(a.org.id, robotA, 'keys'), { token: a.manager.token, body: { publicKey: 'mine' } }));
    });
  });

  describe('POST …/users/{userId}/pats', () => {
    it('issues a token: 201 {tokenId, token}, only a hash stored, user.personal.token.added written', async () => {
      const res = await svc.api('POST', path(a.org.id, robotA, 'pats'), { token: a.manager.token, body: {} });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['token', 'tokenId']);
      const { tokenId, token } = res.body;
      assert.ok(token.length >= 43, 'at least 256 bits');

      const stored = await row(svc, 'SELECT user_id, org_id, token_hash, expires_at FROM personal_access_tokens WHERE id = ?', [tokenId]);
      assert.equal(stored.user_id, robotA);
      assert.equal(stored.org_id, a.org.id);
      assert.equal(stored.expires_at, null);
      assert.notEqual(stored.token_hash, token);
      await assertNotStored(svc, token);

      const event = await theEvent(svc, 'user.personal.token.added', robotA, (e) => e.payload.tokenId === tokenId);
      assert.equal(event.aggregate.type.type, 'user');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.manager.userId);
      assert.deepEqual(event.payload, { tokenId, expirationDate: null });
      assertNoSecretsIn(event.payload, [token, stored.token_hash]);
    });

    it('works as a bearer token with exactly the roles of its user, as they change', async () => {
      const robot = await newMachine(a);
      const pat = await svc.api('POST', path(a.org.id, robot, 'pats'), { token: a.manager.token, body: { expirationDate: '2099-01-01T00:00:00Z' } });
      assert.equal(pat.status, 201, pat.text);
      const token: string = pat.body.token;
      const project = () => svc.api('POST', `/management/v1/orgs/${a.org.id}/projects`, { token, body: { name: unique('p') } });
      const user = () => svc.api('POST', `/management/v1/orgs/${a.org.id}/users/machine`, { token, body: { userName: unique('made-by-pat'), name: 'x' } });

      // No roles: its own organization is visible, nothing is allowed; other organizations do not exist.
      await refused(svc, 403, user);
      await refused(svc, 403, project);
      await refused(svc, 403, () => svc.api('GET', '/admin/v1/orgs', { token }));
      await refused(svc, 404, () => svc.api('POST', `/management/v1/orgs/${b.org.id}/users/machine`, { token, body: { userName: unique('x'), name: 'x' } }));

      const grant = (roles: string[]) => svc.api('PUT', `/management/v1/orgs/${a.org.id}/members/${robot}`, { token: a.owner.token, body: { roles } });
      assert.equal((await grant(['ORG_USER_MANAGER'])).status, 200);
      const created = await user();
      assert.equal(created.status, 201, created.text);
      assert.equal((await theEvent(svc, 'user.machine.added', created.body.userId)).editor.userId, robot);
      await refused(svc, 403, project);
      await refused(svc, 403, () => svc.api('GET', '/admin/v1/orgs', { token }));

      assert.equal((await grant(['ORG_OWNER'])).status, 200);
      const made = await project();
      assert.equal(made.status, 201, made.text);
      assert.equal((await theEvent(svc, 'project.added', made.body.id)).editor.userId, robot);
      await refused(svc, 403, () => svc.api('GET', '/admin/v1/orgs', { token }));
      await refused(svc, 404, () => svc.api('POST', `/management/v1/orgs/${b.org.id}/projects`, { token, body: { name: unique('p') } }));
    });

    it('refuses a token whose expiration date has passed with 401', async () => {
      const robot = await createCaller(svc, a.org.id, { org: ['ORG_USER_MANAGER'] });
      const ok = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/machine`, {
        token: robot.token,
        body: { userName: unique('x'), name: 'x' },
      });
      assert.equal(ok.status, 201, ok.text);
      // Expire it in place rather than wait for it.
      await svc.dataSource.query('UPDATE personal_access_tokens SET expires_at = ? WHERE user_id = ?', [Date.now() - 1000, robot.userId]);
      await refused(svc, 401, () =>
        svc.api('POST', `/management/v1/orgs/${a.org.id}/users/machine`, { token: robot.token, body: { userName: unique('x'), name: 'x' } }),
      );
    });

    it('answers an expiration date in the past, bad dates and unknown fields with 400, and changes nothing', async () => {
      for (const body of [
        { expirationDate: '2001-01-01T00:00:00Z' },
        { expirationDate: new Date(Date.now() - 60_000).toISOString() },
        { expirationDate: '31.12.2099' },
        { expirationDate: true },
      ]) {
        await badRequest(
          svc,
          ['expirationDate'],
          () => svc.api('POST', path(a.org.id, robotA, 'pats'), { token: a.manager.token, body }),
          JSON.stringify(body),
        );
      }
      await badRequest(svc, ['scopes'], () => svc.api('POST', path(a.org.id, robotA, 'pats'), { token: a.manager.token, body: { scopes: ['openid'] } }));
    });
  });

  /** Every secret, token and private key handed out by this suite, for the final sweep of the event log. */
  const issued: string[] = [];
  const issue = async (orgId: string, userId: string, credential: Credential, token: string) => {
    const res = await svc.api('POST', path(orgId, userId, credential), { token, body: {} });
    assert.equal(res.status, 201, res.text);
    issued.push(res.body.clientSecret ?? res.body.token ?? res.body.keyDetails.key);
    return res;
  };

  describe('every credential route', () => {
    it('refuses credentials for a human user with 400, and changes nothing', async () => {
      for (const credential of CREDENTIALS) {
        const res = await refused(svc, 400, () => svc.api('POST', path(a.org.id, humanA, credential), { token: a.manager.token, body: {} }), credential);
        assert.match(res.body.message, /machine users/);
      }
    });

    it('answers 401 without a valid token, and changes nothing', async () => {
      for (const credential of CREDENTIALS) {
        for (const token of INVALID_TOKENS) {
          await refused(svc, 401, () => svc.api('POST', path(a.org.id, robotA, credential), { ...tokenOption(token), body: {} }), credential);
        }
      }
    });

    it('answers 403 to a member without roles, and changes nothing', async () => {
      for (const credential of CREDENTIALS) {
        const res = await refused(svc, 403, () => svc.api('POST', path(a.org.id, robotA, credential), { token: a.member.token, body: {} }), credential);
        assert.match(res.body.message, /ORG_USER_MANAGER/);
      }
    });

    it('answers 404 across organizations and for unknown users, and changes nothing', async () => {
      for (const credential of CREDENTIALS) {
        const cases: Array<[string, string, string]> = [
          ["A's manager on B's path", path(b.org.id, robotB, credential), a.manager.token],
          ["A's owner on B's path", path(b.org.id, robotB, credential), a.owner.token],
          ["A's path with B's user", path(a.org.id, robotB, credential), a.owner.token],
          ["A's path with B's user, instance admin", path(a.org.id, robotB, credential), svc.adminToken],
          ['unknown user', path(a.org.id, randomUUID(), credential), a.manager.token],
          ['unknown organization', path(randomUUID(), robotA, credential), svc.adminToken],
        ];
        for (const [label, p, token] of cases) {
          await refused(svc, 404, () => svc.api('POST', p, { token, body: {} }), `${credential}: ${label}`);
        }
      }
    });

    it('lets an IAM_OWNER issue credentials in any organization', async () => {
      for (const credential of CREDENTIALS) await issue(b.org.id, robotB, credential, svc.adminToken);
    });

    it("refuses to issue a user's credentials to a caller lacking that user's roles (403), and changes nothing", async () => {
      // The owner machine user of A holds ORG_OWNER, which A's user manager lacks.
      for (const credential of CREDENTIALS) {
        const res = await refused(
          svc,
          403,
          () => svc.api('POST', path(a.org.id, a.owner.userId, credential), { token: a.manager.token, body: {} }),
          credential,
        );
        assert.match(res.body.message, /ORG_OWNER/);
      }
      // An IAM_OWNER machine user of A: not even A's owner may act as it.
      const iam = await createCaller(svc, a.org.id, { instance: ['IAM_OWNER'] });
      for (const credential of CREDENTIALS) {
        const res = await refused(svc, 403, () => svc.api('POST', path(a.org.id, iam.userId, credential), { token: a.owner.token, body: {} }), credential);
        assert.match(res.body.message, /IAM_OWNER/);
      }
      // The bootstrap admin client lives in the default organization; that organization's owner is no IAM_OWNER.
      const [defaultOrg] = (await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken })).body.orgs;
      const [adminClient] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
      const defaultOwner = await createCaller(svc, defaultOrg.id, { org: ['ORG_OWNER'] });
      await refused(svc, 403, () => svc.api('POST', path(defaultOrg.id, adminClient.id, 'pats'), { token: defaultOwner.token, body: {} }));

      // Holding the user's roles is enough: A's owner may issue credentials for A's user manager.
      for (const credential of CREDENTIALS) await issue(a.org.id, a.manager.userId, credential, a.owner.token);
    });

    it('writes no secret, token, hash or private key into any event payload', async () => {
      for (const credential of CREDENTIALS) await issue(a.org.id, robotA, credential, a.manager.token);
      const hashes = [
        ...(await svc.dataSource.query('SELECT secret_hash AS h FROM machine_secrets')),
        ...(await svc.dataSource.query('SELECT token_hash AS h FROM personal_access_tokens')),
      ].map((r: { h: string }) => r.h);
      const events = await searchEvents(svc, { limit: 1000 });
      assert.ok(events.some((e) => e.type.type === 'user.personal.token.added'));
      for (const event of events) assertNoSecretsIn(event.payload, [...issued, ...hashes]);
    });
  });
});
