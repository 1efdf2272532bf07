import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import Provider from 'oidc-provider';
import { createOidcApp, createProject, postForm } from '../support/oidc-fixtures.js';
import type { OidcApp } from '../support/oidc-fixtures.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/client-secret.ts wraps: `Client#compareClientSecret`, and `Provider.ctx` for the request. */
describe('contract: Client#compareClientSecret', () => {
  it('is the client method that client authentication asks for basic and post secrets', () => {
    assert.equal(typeof unpatchedProvider().Client.prototype.compareClientSecret, 'function');
    assert.equal(typeof Object.getOwnPropertyDescriptor(Provider, 'ctx')?.get, 'function', 'Provider.ctx names the request being handled');
    assert.match(librarySource('shared/client_auth.js'), /case 'client_secret_post': \{[^}]*await ctx\.oidc\.client\.compareClientSecret\(clientSecret\)/);
  });
});

describe('hashed client secrets, each client held to its registered method', () => {
  const svc = useService();
  let basic: OidcApp;

  before(async () => {
    basic = await createOidcApp(svc, await createProject(svc), { authMethod: 'client_secret_basic' });
  });

  const revoke = (form: Record<string, string>, auth?: { id: string; secret: string }) =>
    postForm(svc, '/oauth/v2/revoke', { token: 'not-a-token', ...form }, auth);

  it('accepts the secret, also when it is presented again', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await revoke({}, { id: basic.clientId, secret: basic.clientSecret! })).status, 200);
  });

  it('refuses a wrong secret and the right one sent by the method the client is not registered for', async () => {
    const wrong = await revoke({}, { id: basic.clientId, secret: `${basic.clientSecret}x` });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.error, 'invalid_client');
    const posted = await revoke({ client_id: basic.clientId, client_secret: basic.clientSecret! });
    assert.equal(posted.status, 401, posted.text);
    assert.equal(posted.body.error, 'invalid_client');
  });
});
