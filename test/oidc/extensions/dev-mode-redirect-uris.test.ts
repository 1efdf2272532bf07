import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEV_MODE_RELAXED_CODES } from '../../../src/oidc/provider/extensions/dev-mode-redirect-uris.js';
import { createOidcApp, createProject } from '../support/oidc-fixtures.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/dev-mode-redirect-uris.ts wraps: `Client.Schema#invalidate` and the codes it is called with. */
describe('contract: Client.Schema#invalidate', () => {
  it('takes a message and a code, and the implicit-flow redirect URI rules pass the relaxed codes', () => {
    const invalidate = unpatchedProvider().Client.Schema.prototype.invalidate;
    assert.equal(typeof invalidate, 'function');
    assert.equal(invalidate.length, 2);
    const schema = librarySource('helpers/client_schema.js');
    for (const code of DEV_MODE_RELAXED_CODES)
      assert.ok(schema.includes(`this.invalidate(\`\${label} for web clients using implicit flow`) && schema.includes(`'${code}')`), code);
  });
});

describe('applications in development mode may use loopback http redirect URIs with the implicit flow', () => {
  const svc = useService();

  it('an implicit authorization request to http://127.0.0.1 reaches the login UI', async () => {
    const redirectUri = 'http://127.0.0.1:65530/cb';
    const app = await createOidcApp(svc, await createProject(svc), {
      authMethod: 'none',
      responseTypes: ['id_token token'],
      grantTypes: ['implicit'],
      redirectUris: [redirectUri],
    });
    const url = new URL('/oauth/v2/authorize', svc.url);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: redirectUri,
      response_type: 'id_token token',
      scope: 'openid',
      nonce: 'n',
      state: 's',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 303, await res.text());
    assert.match(res.headers.get('location') ?? '', /\/ui\/login\//);
  });
});
