import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { unique, useService } from '../support/fixtures.js';
import { JWT_BEARER, createMachineKey, jwtProfileAssertion } from './support/jwt-profile.js';
import type { MachineKey } from './support/jwt-profile.js';
import { createMachine, createProject, postForm } from './support/oidc-fixtures.js';

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": userinfo answers with the claims of the granted scopes for the user an access token belongs
 * to — machine users included, whose client-credentials and JWT-profile tokens carry `openid` when asked.
 */
describe('userinfo with machine users’ tokens (client credentials, JWT profile)', () => {
  const svc = useService();
  let orgId: string;

  before(async () => {
    orgId = (await createProject(svc)).orgId;
  });

  const userinfo = async (token: string) => {
    const res = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${token}` } });
    return {
      status: res.status,
      body: (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined,
      challenge: res.headers.get('www-authenticate') ?? '',
    };
  };

  for (const format of ['opaque', 'jwt'] as const) {
    it(`client credentials (${format}): claims of the granted scopes with openid, insufficient_scope without it`, async () => {
      const machine = await createMachine(svc, orgId, format);
      const grant = (scope?: string) =>
        postForm(
          svc,
          '/oauth/v2/token',
          { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
          { id: machine.clientId, secret: machine.clientSecret },
        );
      const profile = await userinfo((await grant('openid profile')).body.access_token);
      assert.equal(profile.status, 200, JSON.stringify(profile.body));
      assert.equal(profile.body!.sub, machine.userId);
      assert.equal(profile.body!.name, 'machine');
      assert.match(String(profile.body!.preferred_username), /^machine-/);
      const bare = await userinfo((await grant('openid')).body.access_token);
      assert.deepEqual(Object.keys(bare.body!), ['sub'], 'openid alone: sub only');
      const without = await userinfo((await grant()).body.access_token);
      assert.equal(without.status, 403);
      assert.match(without.challenge, /insufficient_scope/);
    });

    it(`JWT profile (${format}): the token of the id_token’s user answers userinfo`, async () => {
      const machine = await keyedMachine(format);
      const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(machine), scope: 'openid profile' });
      assert.equal(res.status, 200, res.text);
      const info = await userinfo(res.body.access_token);
      assert.equal(info.status, 200, JSON.stringify(info.body));
      assert.equal(info.body!.sub, machine.userId);
      assert.equal(info.body!.name, 'svc');
      // RFC 6750 §3.1: a valid token without the scope userinfo needs.
      const bare = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(machine), scope: 'profile' });
      assert.equal(bare.status, 200, bare.text);
      const without = await userinfo(bare.body.access_token);
      assert.equal(without.status, 403);
      assert.match(without.challenge, /insufficient_scope/);
    });
  }

  it('a revoked token and a deactivated machine user’s token are refused with 401', async () => {
    const machine = await createMachine(svc, orgId);
    const token = async () =>
      (await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, { id: machine.clientId, secret: machine.clientSecret }))
        .body.access_token as string;
    const revoked = await token();
    assert.equal((await postForm(svc, '/oauth/v2/revoke', { token: revoked }, { id: machine.clientId, secret: machine.clientSecret })).status, 200);
    assert.equal((await userinfo(revoked)).status, 401);
    const live = await token();
    assert.equal((await userinfo(live)).status, 200);
    await svc.app.get(UserLifecycleService).deactivate(null, orgId, machine.userId);
    assert.equal((await userinfo(live)).status, 401);
  });

  for (const format of ['opaque', 'jwt'] as const) {
    it(`a removed machine user's ${format} tokens are refused with 401 (client credentials and JWT profile)`, async () => {
      const machine = await keyedMachine(format);
      const secret = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machine.userId}/secret`, { token: svc.adminToken, body: {} });
      assert.equal(secret.status, 201, secret.text);
      const credentials = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: 'openid profile' },
        { id: secret.body.clientId, secret: secret.body.clientSecret },
      );
      const profile = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(machine), scope: 'openid profile' });
      const tokens = [credentials.body.access_token as string, profile.body.access_token as string];
      for (const token of tokens) assert.equal((await userinfo(token)).status, 200);
      await svc.app.get(UserLifecycleService).remove(null, orgId, machine.userId);
      for (const token of tokens) {
        const info = await userinfo(token);
        assert.equal(info.status, 401, JSON.stringify(info.body));
        assert.match(info.challenge, /invalid_token/);
      }
    });
  }

  async function keyedMachine(accessTokenType: 'opaque' | 'jwt') {
    const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
      token: svc.adminToken,
      body: { userName: unique('svc'), name: 'svc', accessTokenType },
    });
    assert.equal(created.status, 201, created.text);
    return createMachineKey(svc, orgId, created.body.userId);
  }

  const assertion = (machine: MachineKey) => jwtProfileAssertion(svc, machine);
});
