import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Provider from 'oidc-provider';
import { librarySource } from './oidc-provider-source.js';

/**
 * What src/oidc/device/device-flow.ts and the adapter's device-code handle (src/oidc/adapter/device-codes.ts) rely on
 * in oidc-provider; their effects are tested against the started service in test/oidc/device-flow.test.ts.
 */
describe('contract: the device flow (RFC 8628) in oidc-provider', () => {
  const deviceProvider = () => new Provider('http://127.0.0.1:1', { features: { devInteractions: { enabled: false }, deviceFlow: { enabled: true } } });

  it('the token endpoint reads a device code through DeviceCode.find, ignoring expiry (slow_down is decided there)', () => {
    assert.equal(typeof deviceProvider().DeviceCode.find, 'function');
    assert.match(librarySource('actions/grants/device_code.js'), /findGrantSource\(\s*ctx,\s*provider\.DeviceCode,\s*ctx\.oidc\.params\.device_code/);
    assert.match(librarySource('helpers/grant_source.js'), /Model\.find\(value, \{ ignoreExpiration: true \}\)/);
    assert.match(librarySource('actions/grants/device_code.js'), /if \(code\.isExpired\) \{\s*throw new ExpiredToken/);
  });

  it('the user code page reads `user_code` from the form (renamed from `userCode` before it), and finds the code by it', () => {
    const source = librarySource('actions/code_verification.js');
    assert.match(source, /new Set\(\['xsrf', 'user_code', 'confirm', 'abort'\]\)/);
    assert.match(source, /DeviceCode\.findByUserCode\(\s*normalized,\s*\{ ignoreExpiration: true \}/);
    assert.match(source, /ctx\.oidc\.entity\('DeviceCode', code\);/, 'a live code becomes the request entity (the rate limit gives its attempt back)');
    assert.match(librarySource('helpers/user_codes.js'), /\.replace\(\/\[a-z\]\/g[\s\S]*\.replace\(\/\\W\/g/, 'normalisation: upper case, no separators');
  });

  it('findByUserCode instantiates the adapter payload as is, so its jti (the row handle) is the id saved under', () => {
    const source = librarySource('models/device_code.js');
    assert.match(source, /const stored = await this\.adapter\.findByUserCode\(userCode\);/);
    assert.match(source, /return this\.instantiate\(payload\);/);
    assert.match(librarySource('actions/authorization/device.js'), /DeviceCode\.find\(\s*ctx\.oidc\.entities\.Interaction\.deviceCode/);
  });

  it('the device authorization endpoint asks grantTypeAllowed of the client (unauthorized_client, request-rules.ts)', () => {
    assert.match(
      librarySource('actions/authorization/client.js'),
      /case 'device_authorization':\s*grantType = 'urn:ietf:params:oauth:grant-type:device_code';[\s\S]*if \(!client\.grantTypeAllowed\(grantType\)\)/,
    );
  });

  it("the device authorization endpoint checks the grant type before the scope and resource (request-rules.ts's openid-or-resource rule)", () => {
    const lines = librarySource('actions/authorization/index.js').split('\n');
    // The line of the step in the endpoint's stack, where that step runs at the device authorization endpoint (DA).
    const at = (step: string) => lines.findIndex((line) => line.trim().startsWith(`use(${step},`) && /\bDA\b/.test(line));
    assert.ok(at('checkClientGrantType') > 0, 'the device authorization endpoint checks the grant type');
    assert.ok(at('checkClientGrantType') < at('checkOpenidScope'), 'before the openid-scope check');
    assert.ok(at('checkClientGrantType') < at('checkResource'), 'before the resource check');
  });

  it("the approval writes the person's account and the resource to the device code, then saves it (binding in dynamic-registration.ts)", () => {
    assert.match(
      librarySource('actions/authorization/device.js'),
      /Object\.assign\(code, \{\s*accountId: ctx\.oidc\.session\.accountId,[\s\S]*resource: Object\.keys\(ctx\.oidc\.resourceServers\),[\s\S]*await code\.save\(\);/,
    );
  });

  it('a form posted without a stored session fails saving the new one (the 400 page of device-flow.ts instead of a 500)', () => {
    assert.match(librarySource('models/session.js'), /throw new TypeError\('persist can only be called on previously persisted Sessions'\)/);
    assert.match(librarySource('helpers/initialize_app.js'), /async function ensureSessionSave[\s\S]*await ctx\.oidc\.session\.persist\(\)/);
  });
});
