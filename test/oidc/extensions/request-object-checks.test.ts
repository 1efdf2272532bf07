import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verify } from 'oidc-provider/lib/helpers/jwt.js';
import { librarySource } from './oidc-provider-source.js';

/**
 * What src/oidc/provider/request-object.ts relies on in oidc-provider (a supported hook, and the library's own JWT
 * verification used before its time). The effect on a started service: test/oidc/request-objects.test.ts.
 */
describe('contract: the request object hook and the JWT verification it uses first', () => {
  const source = librarySource('actions/authorization/process_request_object.js');

  it("assertJwtClaimsAndHeader is called with the client before the signature is verified, with the client's asymmetric key store", () => {
    const hook = source.indexOf('await features.requestObjects.assertJwtClaimsAndHeader(');
    const verification = source.indexOf('await JWT.verify(params.request, client.asymmetricKeyStore, opts);');
    assert.ok(hook > 0 && verification > hook, 'the hook runs first, then the verification');
    assert.match(source, /assertJwtClaimsAndHeader\(\s*ctx,\s*structuredClone\(decoded\.payload\),\s*structuredClone\(decoded\.header\),\s*client,\s*\)/);
  });

  it('a pushed request object is recognised by its PushedAuthorizationRequest entity, and is not verified again', () => {
    assert.match(source, /const pushedRequestObject = 'PushedAuthorizationRequest' in ctx\.oidc\.entities;/);
    assert.match(source, /if \(pushedRequestObject\) \{\s*\(\{ trusted \} = ctx\.oidc\.entities\.PushedAuthorizationRequest\);/);
  });

  it('helpers/jwt.js exports verify(jwt, keystore, options)', () => {
    assert.equal(typeof verify, 'function');
    assert.match(librarySource('helpers/jwt.js'), /export async function verify\(jwt, keystore, options = \{\}\)/);
  });
});
