import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

/**
 * What extensions/code-save.ts wraps: `AuthorizationCode#save` and `DeviceCode#save`, the one place an issued code
 * is stored before the client hears of it. An open registration is bound to an organization there
 * (test/oidc/dynamic-registration.test.ts drives the binding itself).
 */
describe('contract: AuthorizationCode#save and DeviceCode#save', () => {
  it('are methods of the code models', () => {
    const provider = unpatchedProvider();
    assert.equal(typeof provider.AuthorizationCode.prototype.save, 'function');
    assert.equal(typeof provider.DeviceCode.prototype.save, 'function');
  });

  it('store an authorization code before the response that carries it', () => {
    assert.match(librarySource('helpers/process_response_types.js'), /return \{ code: await code\.save\(\) \};/);
  });

  it('store a device code after its approval writes the account to it, and after a denial its error', () => {
    const device = librarySource('actions/authorization/device.js');
    const approval = device.indexOf('accountId: ctx.oidc.session.accountId');
    assert.ok(approval > 0, 'the approval writes the account to the device code');
    assert.ok(device.indexOf('await code.save();', approval) > approval, 'and saves it afterwards');
    assert.match(device, /error: out\.error,\s+errorDescription: out\.error_description,\s+\}\);\s+await code\.save\(\);/);
  });
});
