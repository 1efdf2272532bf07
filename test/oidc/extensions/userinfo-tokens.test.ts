import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMachine, createProject, postForm } from '../support/oidc-fixtures.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/userinfo-tokens.ts wraps: the static finders userinfo looks its token and grant up with. */
describe('contract: AccessToken.find and Grant.find at userinfo', () => {
  it('are static finders, and userinfo refuses a token with an audience', () => {
    const provider = unpatchedProvider();
    for (const find of [provider.AccessToken.find, provider.Grant.find, provider.ClientCredentials.find]) assert.equal(typeof find, 'function');
    const lookups = librarySource('shared/access_token.js');
    assert.match(lookups, /await ctx\.oidc\.provider\.AccessToken\.find\(value\)/);
    assert.match(lookups, /await ctx\.oidc\.provider\.Grant\.find\(ctx\.oidc\.accessToken\.grantId/);
    assert.match(librarySource('actions/userinfo.js'), /if \(accessToken\.aud !== undefined\)/);
  });
});

describe("userinfo honours a machine user's client-credentials token with openid", () => {
  const svc = useService();

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType} access token`, async () => {
      const project = await createProject(svc);
      const machine = await createMachine(svc, project.orgId, accessTokenType);
      const token = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: 'openid' },
        { id: machine.clientId, secret: machine.clientSecret },
      );
      assert.equal(token.status, 200, token.text);
      const res = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${token.body.access_token}` } });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.equal(JSON.parse(text).sub, machine.userId);
    });
  }
});
