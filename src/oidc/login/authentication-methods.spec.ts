import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACR_MFA, ACR_PASSWORD, authenticationOf, passkeyMethods } from './authentication-methods.js';

describe('amr and acr of a sign-in (RFC 8176)', () => {
  it('a password alone is one factor', () => {
    assert.deepEqual(authenticationOf(['pwd'], []), { amr: ['pwd'], acr: ACR_PASSWORD });
  });

  it('a password and a code, or a password and a passkey, are two', () => {
    assert.deepEqual(authenticationOf(['pwd'], ['otp']), { amr: ['pwd', 'otp', 'mfa'], acr: ACR_MFA });
    assert.deepEqual(authenticationOf(['pwd'], passkeyMethods(true, false)), { amr: ['pwd', 'swk', 'user', 'mfa'], acr: ACR_MFA });
  });

  it('a passkey alone is two factors only when it verified its user', () => {
    assert.deepEqual(authenticationOf(passkeyMethods(false, true)), { amr: ['hwk', 'user', 'mfa'], acr: ACR_MFA });
    assert.deepEqual(authenticationOf(passkeyMethods(false, false)), { amr: ['hwk', 'user'], acr: ACR_PASSWORD });
  });

  it('the same method twice counts once', () => {
    assert.deepEqual(authenticationOf(['pwd'], ['pwd']), { amr: ['pwd'], acr: ACR_PASSWORD });
  });
});
