import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { LoginClient } from '../../attack/support/login-client.js';
import { useService } from '../../support/fixtures.js';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from '../support/oidc-fixtures.js';
import { signIn } from '../support/sign-in.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';
const SCOPE = 'openid profile email offline_access';

/** What extensions/id-token-claims.ts wraps: `IdToken#issue`, which reads the scope it masks the claims with. */
describe('contract: IdToken#issue', () => {
  it('is a method of the ID token that masks its claims by this.scope', () => {
    assert.equal(typeof unpatchedProvider().IdToken.prototype.issue, 'function');
    const source = librarySource('models/id_token.js');
    assert.match(source, /async issue\(\{ use, expiresAt = null \} = \{\}\)/);
    assert.match(source, /mask\.scope\(this\.scope\)/);
  });
});

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": when an access token is issued, the id_token omits the claims of the profile, email, phone
 * and address scopes unless the application sets idTokenUserinfoAssertion — whatever its access token
 * type, in every flow that issues both.
 */
describe('ID token claims follow idTokenUserinfoAssertion for opaque and JWT access tokens', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    for (const assertion of [false, true]) {
      it(`${accessTokenType} access tokens, idTokenUserinfoAssertion ${assertion}: code and refresh`, async () => {
        const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType, idTokenUserinfoAssertion: assertion });
        const { tokens, error } = await signIn(svc, {
          clientId: app.clientId,
          clientSecret: app.clientSecret,
          redirectUri: REDIRECT,
          loginName,
          password: PASSWORD,
          scope: SCOPE,
        });
        assert.ok(tokens, error);
        assertProfileClaims(tokens.id_token!, assertion, 'code');
        const refreshed = await postForm(
          svc,
          '/oauth/v2/token',
          { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
          { id: app.clientId, secret: app.clientSecret! },
        );
        assert.equal(refreshed.status, 200, refreshed.text);
        assertProfileClaims(refreshed.body.id_token, assertion, 'refresh');
      });

      it(`${accessTokenType} access tokens, idTokenUserinfoAssertion ${assertion}: implicit id_token token`, async () => {
        const app = await createOidcApp(svc, project, {
          authMethod: 'none',
          accessTokenType,
          idTokenUserinfoAssertion: assertion,
          responseTypes: ['id_token token', 'id_token'],
          grantTypes: ['implicit'],
        });
        assertProfileClaims(await implicitIdToken(app.clientId, 'id_token token'), assertion, 'implicit with an access token');
        // Without an access token there is no userinfo to read them from: the id_token carries them.
        assertProfileClaims(await implicitIdToken(app.clientId, 'id_token'), true, 'implicit without an access token');
      });
    }
  }

  async function implicitIdToken(clientId: string, responseType: string): Promise<string> {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: responseType,
      scope: 'openid profile email',
      nonce: 'n1',
      state: 'st',
    });
    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(REDIRECT)) res = await browser.get(res.location);
    const fragment = new URLSearchParams(new URL(res.location ?? 'x:/').hash.slice(1));
    const idToken = fragment.get('id_token');
    assert.ok(idToken, `an id_token in the fragment: ${res.location}`);
    return idToken;
  }
});

function assertProfileClaims(idToken: string, expected: boolean, flow: string): void {
  const claims = decodeJwt(idToken);
  assert.ok(claims.sub, flow);
  for (const name of ['given_name', 'email', 'preferred_username']) {
    assert.equal(name in claims, expected, `${flow}: ${name} ${expected ? 'in' : 'not in'} the id_token: ${JSON.stringify(claims)}`);
  }
}
