import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { errors } from 'oidc-provider';
import { createOidcApp, createProject, postForm } from '../support/oidc-fixtures.js';
import type { OidcApp } from '../support/oidc-fixtures.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

/** What extensions/request-rules.ts wraps: the client's two checks, each at its one call site. */
describe('contract: Client#responseTypeAllowed and Client#grantTypeAllowed', () => {
  it('are client methods asked once by the authorization and token endpoints', () => {
    const client = unpatchedProvider().Client.prototype;
    assert.equal(typeof client.responseTypeAllowed, 'function');
    assert.equal(typeof client.grantTypeAllowed, 'function');
    assert.match(librarySource('actions/authorization/response_parameters.js'), /if \(!ctx\.oidc\.client\.responseTypeAllowed\(params\.response_type\)\)/);
    assert.match(librarySource('actions/token.js'), /if \(!ctx\.oidc\.client\.grantTypeAllowed\(ctx\.oidc\.params\.grant_type\)\)/);
    assert.equal(new errors.UnauthorizedClient('x').error, 'unauthorized_client');
    assert.equal(new errors.InvalidScope('x', 'openid').error, 'invalid_scope');
  });

  it('Client#requireAuthTime is assigned by the constructor and read only by the authorization endpoint', () => {
    assert.match(librarySource('models/client.js'), /Object\.assign\(this, mapKeys\(schema/, 'an inherited setter receives it');
    assert.match(librarySource('actions/authorization/scopes.js'), /requireAuthTime: 'require_auth_time'/);
    assert.match(librarySource('actions/authorization/claims.js'), /ctx\.oidc\.client\.requireAuthTime/);
  });
});

describe('the RFC 6749 error codes of the request rules', () => {
  const svc = useService();
  let app: OidcApp;

  before(async () => {
    app = await createOidcApp(svc, await createProject(svc), { authMethod: 'client_secret_basic', redirectUris: [REDIRECT] });
  });

  async function authorizationError(params: Record<string, string>): Promise<string | null> {
    const url = new URL('/oauth/v2/authorize', svc.url);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, state: 's', nonce: 'n', ...params }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    // The error comes back in the response type's default response mode: the query or the fragment.
    const location = new URL(res.headers.get('location') ?? '/', svc.url);
    return location.searchParams.get('error') ?? new URLSearchParams(location.hash.slice(1)).get('error');
  }

  it('a response type the application is not registered for is unauthorized_client (RFC 6749 §4.1.2.1)', async () => {
    assert.equal(await authorizationError({ response_type: 'id_token', scope: 'openid' }), 'unauthorized_client');
  });

  it('a request without openid is invalid_scope', async () => {
    assert.equal(await authorizationError({ response_type: 'code', scope: 'profile' }), 'invalid_scope');
  });

  it('a grant type the application is not registered for is unauthorized_client (RFC 6749 §5.2)', async () => {
    const res = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: app.clientId, secret: app.clientSecret! });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'unauthorized_client');
  });
});
