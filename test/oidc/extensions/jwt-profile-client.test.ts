import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

/**
 * What extensions/jwt-profile-client.ts relies on: oidc-provider reads a POST body itself, once, and assigns the
 * parsed form to `ctx.oidc.body`, which the token endpoint turns into its params before it looks for the client. The
 * extension names a JWT-profile request's client at that assignment (test/oidc/jwt-profile.test.ts drives the grant).
 */
describe('contract: the token endpoint parses its body into ctx.oidc.body before client authentication', () => {
  it('has no body accessor of its own on OIDCContext', () => {
    const provider = unpatchedProvider();
    assert.equal(Object.getOwnPropertyDescriptor(provider.OIDCContext.prototype, 'body'), undefined);
  });

  it('assigns the parsed form to ctx.oidc.body (shared/selective_body.js)', () => {
    const source = librarySource('shared/selective_body.js');
    assert.match(source, /ctx\.oidc\.body = querystring\.parse\(body\.toString\(\)\);/);
    assert.match(source, /for await \(const chunk of req\.iterator\(\{ destroyOnReturn: false \}\)\)/);
  });

  it('makes the POST params of ctx.oidc.body (shared/assemble_params.js)', () => {
    assert.match(librarySource('shared/assemble_params.js'), /const params = ctx\.method === 'POST' \? ctx\.oidc\.body : ctx\.query;/);
  });

  it('parses the token body, then assembles the params, then authenticates the client (actions/token.js)', () => {
    const token = librarySource('actions/token.js');
    const parse = token.indexOf('  parseBody,');
    const assemble = token.indexOf('function assembleTokenParams', parse);
    const auth = token.indexOf('...clientAuth,', assemble);
    assert.ok(parse > 0 && assemble > parse && auth > assemble, 'body, params, client authentication in this order');
  });

  it('sets the route name of the context from the matched route, `token` for the token endpoint', () => {
    assert.match(librarySource('helpers/oidc_context.js'), /this\.route = ctx\._matchedRouteName;/);
    assert.match(librarySource('helpers/initialize_app.js'), /post\('token', routes\.token,/);
  });
});
