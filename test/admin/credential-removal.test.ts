import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { JWT_BEARER, createMachineKey, jwtProfileAssertion } from '../oidc/support/jwt-profile.js';
import { createMachine, postForm } from '../oidc/support/oidc-fixtures.js';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, badRequest, refused, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

/**
 * Listing and removing a machine user's credentials (docs/product-rules.md, "API"): lists carry no secret
 * material, and a removed credential stops working where a client would use it.
 */
describe('management API: list and remove machine credentials', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const path = (org: OrgSetup, userId: string, tail: string) => `/management/v1/orgs/${org.org.id}/users/${userId}/${tail}`;

  async function newMachine(org: OrgSetup): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/users/machine`, {
      token: org.manager.token,
      body: { userName: unique('robot'), name: 'Robot' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  async function newHuman(org: OrgSetup): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/users/human`, {
      token: org.manager.token,
      body: { userName: unique('person'), profile: { firstName: 'Pat', lastName: 'Person' }, email: { email: 'pat@example.com' } },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  describe('personal access tokens', () => {
    it('lists them without token values, total and paging; a removed one is answered 401', async () => {
      const robot = await newMachine(a);
      const forever = await svc.api('POST', path(a, robot, 'pats'), { token: a.manager.token, body: {} });
      const expiring = await svc.api('POST', path(a, robot, 'pats'), { token: a.manager.token, body: { expirationDate: '2099-01-01T00:00:00Z' } });
      assert.equal(forever.status, 201, forever.text);
      assert.equal(expiring.status, 201, expiring.text);

      const list = await svc.api('GET', path(a, robot, 'pats'), { token: a.manager.token });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.total, 2);
      const byId = new Map(list.body.pats.map((p: { tokenId: string }) => [p.tokenId, p]));
      assert.deepEqual(Object.keys(byId.get(forever.body.tokenId) as object).sort(), ['createdAt', 'tokenId']);
      assert.deepEqual(byId.get(expiring.body.tokenId), {
        tokenId: expiring.body.tokenId,
        createdAt: (byId.get(expiring.body.tokenId) as { createdAt: string }).createdAt,
        expirationDate: '2099-01-01T00:00:00.000Z',
      });
      assertNoSecretsIn(list.body, [forever.body.token, expiring.body.token]);
      const paged = await svc.api('GET', `${path(a, robot, 'pats')}?limit=1&offset=1`, { token: a.manager.token });
      assert.equal(paged.body.pats.length, 1);
      assert.equal(paged.body.total, 2);
      assert.deepEqual(
        [...list.body.pats.map((p: { tokenId: string }) => p.tokenId)].slice(1),
        paged.body.pats.map((p: { tokenId: string }) => p.tokenId),
      );

      // The token works as a bearer token until it is removed (a role makes the difference visible).
      const member = await svc.api('PUT', `/management/v1/orgs/${a.org.id}/members/${robot}`, { token: a.owner.token, body: { roles: ['ORG_USER_MANAGER'] } });
      assert.equal(member.status, 200, member.text);
      assert.equal((await svc.api('GET', `/management/v1/orgs/${a.org.id}/users?limit=1`, { token: forever.body.token })).status, 200);
      const removed = await svc.api('DELETE', path(a, robot, `pats/${forever.body.tokenId}`), { token: a.owner.token });
      assert.equal(removed.status, 204, removed.text);
      const event = await theEvent(svc, 'user.personal.token.removed', robot);
      assert.deepEqual(event.payload, { tokenId: forever.body.tokenId });
      assert.equal(event.editor.userId, a.owner.userId);
      await refused(svc, 401, () => svc.api('GET', `/management/v1/orgs/${a.org.id}/users?limit=1`, { token: forever.body.token }));
      assert.equal(
        (await svc.api('GET', `/management/v1/orgs/${a.org.id}/users?limit=1`, { token: expiring.body.token })).status,
        200,
        'the other token is untouched',
      );
      await refused(svc, 404, () => svc.api('DELETE', path(a, robot, `pats/${forever.body.tokenId}`), { token: a.owner.token }), 'already removed');
      assert.equal((await svc.api('GET', path(a, robot, 'pats'), { token: a.manager.token })).body.total, 1);
    });

    it("another user's token id is not found through this user", async () => {
      const one = await newMachine(a);
      const two = await newMachine(a);
      const pat = await svc.api('POST', path(a, one, 'pats'), { token: a.manager.token, body: {} });
      await refused(svc, 404, () => svc.api('DELETE', path(a, two, `pats/${pat.body.tokenId}`), { token: a.manager.token }));
    });
  });

  describe('machine keys', () => {
    it('lists them without key material; a removed key no longer signs a JWT profile grant', async () => {
      const machine = await createMachine(svc, a.org.id);
      const key = await createMachineKey(svc, a.org.id, machine.userId);
      const grant = async () => postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await jwtProfileAssertion(svc, key), scope: 'openid' });
      assert.equal((await grant()).status, 200, 'the key works');

      const list = await svc.api('GET', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/keys`, { token: a.manager.token });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.total, 1);
      assert.deepEqual(Object.keys(list.body.keys[0]).sort(), ['createdAt', 'keyId']);
      assert.equal(list.body.keys[0].keyId, key.keyId);
      assert.ok(!Number.isNaN(Date.parse(list.body.keys[0].createdAt)));
      assertNoSecretsIn(list.body, [key.key]);
      assert.ok(!JSON.stringify(list.body).includes('PUBLIC KEY'), 'no key material at all');

      const removed = await svc.api('DELETE', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/keys/${key.keyId}`, { token: a.manager.token });
      assert.equal(removed.status, 204, removed.text);
      assert.deepEqual((await theEvent(svc, 'user.machine.key.removed', machine.userId)).payload, { keyId: key.keyId });
      const after = await grant();
      assert.equal(after.status, 400, after.text);
      assert.equal(after.body.error, 'invalid_grant');
      assert.deepEqual((await svc.api('GET', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/keys`, { token: a.manager.token })).body, {
        keys: [],
        total: 0,
      });
      await refused(svc, 404, () => svc.api('DELETE', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/keys/${key.keyId}`, { token: a.manager.token }));
    });
  });

  describe('client secret', () => {
    it('a removed secret is refused by the client credentials grant', async () => {
      const machine = await createMachine(svc, a.org.id);
      const grant = () => postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
      assert.equal((await grant()).status, 200);
      const removed = await svc.api('DELETE', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/secret`, { token: a.manager.token });
      assert.equal(removed.status, 204, removed.text);
      const event = await theEvent(svc, 'user.machine.secret.removed', machine.userId);
      assert.equal(event.editor.userId, a.manager.userId);
      // At once in the process that served the removal (it used to work 1–2 s longer).
      const after = await grant();
      assert.equal(after.status, 401, after.text);
      assert.equal(after.body.error, 'invalid_client');
      await refused(
        svc,
        404,
        () => svc.api('DELETE', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/secret`, { token: a.manager.token }),
        'no secret left',
      );
    });
  });

  describe('client secret rotation', () => {
    it('a replacing secret works at once and the replaced one stops at once, with no outage', async () => {
      const machine = await createMachine(svc, a.org.id);
      const grant = (secret: string) => postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret });
      assert.equal((await grant(machine.clientSecret)).status, 200, 'the registration is cached now');
      const rotated = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/${machine.userId}/secret`, { token: a.manager.token, body: {} });
      assert.equal(rotated.status, 201, rotated.text);
      const fresh = await grant(rotated.body.clientSecret);
      assert.equal(fresh.status, 200, `the new secret at once: ${fresh.text}`);
      const old = await grant(machine.clientSecret);
      assert.equal(old.status, 401, old.text);
      assert.equal(old.body.error, 'invalid_client');
    });
  });

  describe('refusals', () => {
    it('401, 403 without the role, 404 outside the organization, 400 for humans and bad paging; nothing changes', async () => {
      const robot = await newMachine(a);
      const human = await newHuman(a);
      await svc.api('POST', path(a, robot, 'secret'), { token: a.manager.token, body: {} });
      const pat = (await svc.api('POST', path(a, robot, 'pats'), { token: a.manager.token, body: {} })).body.tokenId;
      const key = (await svc.api('POST', path(a, robot, 'keys'), { token: a.manager.token, body: {} })).body.keyId;
      const routes: [string, string][] = [
        ['GET', 'pats'],
        ['GET', 'keys'],
        ['DELETE', 'secret'],
        ['DELETE', `pats/${pat}`],
        ['DELETE', `keys/${key}`],
      ];
      for (const [method, tail] of routes) {
        for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api(method, path(a, robot, tail), tokenOption(token)), tail);
        await refused(svc, 403, () => svc.api(method, path(a, robot, tail), { token: a.member.token }), tail);
        await refused(svc, 404, () => svc.api(method, path(b, robot, tail), { token: b.manager.token }), `${tail} through another organization`);
        await refused(svc, 404, () => svc.api(method, path(a, robot, tail), { token: b.manager.token }), `${tail} in an organization outside the caller`);
        await refused(svc, 404, () => svc.api(method, path(a, 'no-such-user', tail), { token: a.manager.token }), tail);
        await refused(svc, 400, () => svc.api(method, path(a, human, tail), { token: a.manager.token }), `${tail} of a human`);
      }
      await badRequest(svc, ['limit'], () => svc.api('GET', `${path(a, robot, 'pats')}?limit=1001`, { token: a.manager.token }));
      await badRequest(svc, ['offset'], () => svc.api('GET', `${path(a, robot, 'keys')}?offset=-1`, { token: a.manager.token }));
    });

    it('removing a credential of a user holding a role the caller lacks is 403 (the acting rule); reading it is not', async () => {
      const owner = await createCaller(svc, a.org.id, { org: ['ORG_OWNER'] });
      const pats = await svc.api('GET', path(a, owner.userId, 'pats'), { token: a.manager.token });
      assert.equal(pats.status, 200, 'reading is not acting');
      const tokenId = pats.body.pats[0].tokenId;
      await refused(svc, 403, () => svc.api('DELETE', path(a, owner.userId, `pats/${tokenId}`), { token: a.manager.token }));
      await refused(svc, 403, () => svc.api('DELETE', path(a, owner.userId, 'secret'), { token: a.manager.token }));
      assert.equal((await svc.api('GET', `/management/v1/orgs/${a.org.id}/users?limit=1`, { token: owner.token })).status, 200, 'the token still works');
    });
  });
});
