import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { JWT_BEARER, createMachineKey, jwtProfileAssertion } from './support/jwt-profile.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { useService } from '../support/fixtures.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';
const projectScope = (projectId: string) => `urn:portcullis:iam:org:project:id:${projectId}:aud`;

/** docs/product-rules.md, "OpenID Connect and OAuth": every listed introspection member, plus the user claims of the granted scopes. */
describe('introspection response members (RFC 7662 §2.2)', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let api: OidcApp;
  let user: { userId: string; userName: string };

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
    user = await createHuman(svc, project.orgId);
  });

  const introspect = async (token: string) => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.active, true, res.text);
    return res.body as Record<string, unknown>;
  };

  function assertStandardMembers(body: Record<string, unknown>, sub: string, token: string) {
    for (const name of ['active', 'aud', 'client_id', 'exp', 'iat', 'nbf', 'iss', 'jti', 'scope', 'token_type', 'username', 'sub']) {
      assert.ok(body[name] !== undefined, `${name} in ${JSON.stringify(body)}`);
    }
    assert.equal(body.sub, sub);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.iss, svc.config.publicUrl);
    assert.ok(Number(body.nbf) <= Number(body.iat) + 1 && Number(body.iat) < Number(body.exp));
    assert.notEqual(body.jti, token, 'the token id is not the token itself');
  }

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`a user's ${accessTokenType} token: the standard members and the claims of its scopes`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType });
      const loginName = `${user.userName}@${project.primaryDomain}`;
      const { tokens, error } = await signIn(svc, {
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri: REDIRECT,
        loginName,
        password: PASSWORD,
        scope: 'openid profile email',
      });
      assert.ok(tokens, error);
      const body = await introspect(tokens.access_token);
      assertStandardMembers(body, user.userId, tokens.access_token);
      assert.equal(body.username, loginName);
      assert.equal(body.given_name, 'Ada');
      assert.equal(typeof body.email, 'string');
      assert.equal(body.phone_number, undefined, 'no claims of scopes not granted');
      if (accessTokenType === 'jwt') assert.equal(body.jti, decodeJwt(tokens.access_token).jti, 'a JWT’s jti is its own');

      const narrow = await signIn(svc, {
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri: REDIRECT,
        loginName,
        password: PASSWORD,
        scope: 'openid',
      });
      const bare = await introspect(narrow.tokens!.access_token);
      assert.equal(bare.given_name, undefined);
      assert.equal(bare.email, undefined);
      assert.notEqual(bare.jti, body.jti, 'each token its own id');
    });

    it(`a machine user's ${accessTokenType} client-credentials and JWT-profile tokens: sub, iat and the other members`, async () => {
      const machine = await createMachine(svc, project.orgId, accessTokenType);
      const res = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: `${projectScope(project.projectId)} profile` },
        { id: machine.clientId, secret: machine.clientSecret },
      );
      assert.equal(res.status, 200, res.text);
      const body = await introspect(res.body.access_token);
      assertStandardMembers(body, machine.userId, res.body.access_token);
      assert.equal(body.client_id, machine.clientId);
      assert.equal(body.name, 'machine', 'the profile claims of the machine user');

      const key = await createMachineKey(svc, project.orgId, machine.userId);
      const profile = await postForm(svc, '/oauth/v2/token', {
        grant_type: JWT_BEARER,
        assertion: await jwtProfileAssertion(svc, key),
        scope: `${projectScope(project.projectId)} profile`,
      });
      assert.equal(profile.status, 200, profile.text);
      const profileBody = await introspect(profile.body.access_token);
      assertStandardMembers(profileBody, machine.userId, profile.body.access_token);
      assert.equal(profileBody.name, 'machine', 'a JWT-profile token: the same members and claims');
    });
  }

  it("the claims are the user's current ones, read at introspection like at userinfo", async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const renamed = await createHuman(svc, project.orgId);
    const loginName = `${renamed.userName}@${project.primaryDomain}`;
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid profile',
    });
    assert.ok(tokens, error);
    assert.equal((await introspect(tokens.access_token)).given_name, 'Ada');
    const patched = await svc.api('PATCH', `/scim/v2/${project.orgId}/Users/${renamed.userId}`, {
      token: svc.adminToken,
      headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json' },
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'name.givenName', value: 'Grace' }] },
    });
    assert.equal(patched.status, 204, patched.text);
    assert.equal((await introspect(tokens.access_token)).given_name, 'Grace');
    const info = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(((await info.json()) as { given_name?: string }).given_name, 'Grace');
  });

  it("a removed machine user's token is no longer active", async () => {
    const machine = await createMachine(svc, project.orgId);
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: `${projectScope(project.projectId)} profile` },
      { id: machine.clientId, secret: machine.clientSecret },
    );
    assert.equal((await introspect(res.body.access_token)).sub, machine.userId);
    await svc.app.get(UserLifecycleService).remove(null, project.orgId, machine.userId);
    const after = await postForm(svc, '/oauth/v2/introspect', { token: res.body.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.deepEqual(after.body, { active: false });
  });
});
