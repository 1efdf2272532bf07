import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { unique, useService } from '../support/fixtures.js';
import { PASSWORD, createApiApp, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

/** The `groups` scope: the names of the user's groups in userinfo, introspection and (per the usual rule) the ID token. */
describe('the groups scope and claim, signed in through the login UI', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let api: OidcApp;
  let user: { userId: string; userName: string };
  let loginName: string;
  // In the claim's order: by the folded name, code point by code point ("ä" after "e").
  const names = [`Engineering ${unique('g')}`, `Ärzte ${unique('g')}`];
  const groupIds: string[] = [];

  const management = (method: string, path: string, body?: unknown) =>
    svc.api(method, `/management/v1/orgs/${project.orgId}${path}`, { token: svc.adminToken, body });
  const userinfo = async (token: string) => {
    const res = await svc.api('GET', '/oidc/v1/userinfo', { token });
    assert.equal(res.status, 200, res.text);
    return res.body as Record<string, unknown>;
  };
  const introspect = async (token: string) => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(res.body.active, true, res.text);
    return res.body as Record<string, unknown>;
  };
  const signInWith = async (app: OidcApp, scope: string) => {
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope,
    });
    assert.ok(tokens, error);
    return tokens;
  };

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
    user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    for (const displayName of names) {
      const created = await management('POST', '/groups', { displayName });
      assert.equal(created.status, 201, created.text);
      groupIds.push(created.body.id);
      assert.equal((await management('PUT', `/groups/${created.body.id}/members/${user.userId}`)).status, 200);
    }
  });

  it('discovery lists the groups scope and claim', async () => {
    const discovery = (await svc.api('GET', '/.well-known/openid-configuration')).body;
    assert.ok(discovery.scopes_supported.includes('groups'));
    assert.ok(discovery.claims_supported.includes('groups'));
  });

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType} access tokens: groups in userinfo and introspection, not in the ID token (an access token was issued)`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType });
      const tokens = await signInWith(app, 'openid groups');
      assert.deepEqual((await userinfo(tokens.access_token)).groups, names);
      assert.deepEqual((await introspect(tokens.access_token)).groups, names);
      assert.equal(decodeJwt(tokens.id_token!).groups, undefined);
    });
  }

  it('with idTokenUserinfoAssertion the ID token carries the groups too', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', idTokenUserinfoAssertion: true });
    const tokens = await signInWith(app, 'openid groups');
    assert.deepEqual(decodeJwt(tokens.id_token!).groups, names);
  });

  it('without the groups scope there is no groups claim; a membership change shows at the next userinfo call', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const plain = await signInWith(app, 'openid profile');
    assert.equal((await userinfo(plain.access_token)).groups, undefined);
    assert.equal((await introspect(plain.access_token)).groups, undefined);

    const tokens = await signInWith(app, 'openid groups');
    assert.equal((await management('DELETE', `/groups/${groupIds[0]}/members/${user.userId}`)).status, 204);
    assert.deepEqual((await userinfo(tokens.access_token)).groups, [names[1]]);
    assert.equal((await management('DELETE', `/groups/${groupIds[1]}`)).status, 204);
    assert.deepEqual((await userinfo(tokens.access_token)).groups, []);
  });
});
