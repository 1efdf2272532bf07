import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { useService } from '../../support/fixtures.js';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from '../support/oidc-fixtures.js';
import { signIn } from '../support/sign-in.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

const RP = 'http://127.0.0.1:65530';

/** What extensions/session-id-claim.ts replaces: `Client#includeSid`, asked where codes and ID tokens are made. */
describe('contract: Client#includeSid', () => {
  it('is a method of the client that decides whether codes and ID tokens carry sid', () => {
    assert.equal(typeof unpatchedProvider().Client.prototype.includeSid, 'function');
    const source = librarySource('helpers/process_response_types.js');
    assert.match(source, /ctx\.oidc\.client\.includeSid\(\)[^\n]*\n\s+code\.sid = ctx\.oidc\.session\.sidFor\(ctx\.oidc\.client\.clientId\)/);
    assert.match(librarySource('helpers/grant_common.js'), /token\.set\('sid', source\.sid\)/);
  });
});

describe('every ID token carries the sid of its sign-in', () => {
  const svc = useService();

  it('in the code flow and after a refresh, for a client without back-channel logout', async () => {
    const project = await createProject(svc);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', 'refresh_token'] }, RP);
    const user = await createHuman(svc, project.orgId);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid offline_access',
    });
    assert.ok(tokens, error);
    const sid = decodeJwt(tokens.id_token!).sid;
    assert.equal(typeof sid, 'string');
    const refreshed = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(refreshed.status, 200, refreshed.text);
    const body = refreshed.body as { id_token: string };
    assert.equal(decodeJwt(body.id_token).sid, sid, 'the refresh token carries it on');
  });
});
