import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { librarySource } from './oidc-provider-source.js';

/**
 * What src/oidc/provider/dpop-errors.ts recognises oidc-provider's two DPoP refusals by, and the events it listens to.
 * The effect on a started service: test/oidc/dpop.test.ts (a dpopBoundAccessTokens application's code flow).
 */
describe('contract: the details of the DPoP refusals, and the error events after the body is written', () => {
  it('a missing proof and a key mismatch carry the details the listeners look for', () => {
    assert.match(
      librarySource('helpers/sender_constraints.js'),
      /if \(!dPoP && ctx\.oidc\.client\.dpopBoundAccessTokens\) \{\s*throw new ErrorClass\('DPoP proof JWT not provided'\);/,
    );
    assert.match(librarySource('shared/access_token.js'), /throw new InvalidToken\('failed jkt verification'\);/);
  });

  it('the token and userinfo endpoints emit grant.error and userinfo.error from the handler that wrote the body', () => {
    const app = librarySource('helpers/initialize_app.js');
    assert.match(app, /post\('token', routes\.token, error\('grant\.error'\)/);
    assert.match(app, /get\('userinfo', routes\.userinfo, CORS\.userinfo, error\('userinfo\.error'\)/);
    assert.match(
      librarySource('shared/error_handler.js'),
      /ctx\.body = out;\s*\}\s*if \(out\.error === 'server_error'\) \{\s*provider\.emit\('server_error', ctx, err\);\s*\} else if \(eventName\) \{\s*provider\.emit\(eventName, ctx, err\);/,
    );
  });
});
