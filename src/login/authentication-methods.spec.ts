import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACR_MFA, ACR_PASSWORD, authenticationOf, passkeyMethods, reportedAuthentication, sessionSteps } from './authentication-methods.js';

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

  it('a sign-in at the organization’s IdP is one factor; with a local code, two', () => {
    assert.deepEqual(authenticationOf(['fed']), { amr: ['fed'], acr: ACR_PASSWORD });
    assert.deepEqual(authenticationOf(['fed'], ['otp']), { amr: ['fed', 'otp', 'mfa'], acr: ACR_MFA });
  });

  it('a trusted upstream’s methods are reported but count for nothing; its mfa arrives as a step', () => {
    assert.deepEqual(reportedAuthentication([['fed'], []], ['pwd', 'otp']), { amr: ['fed', 'pwd', 'otp'], acr: ACR_PASSWORD });
    assert.deepEqual(reportedAuthentication([['fed', 'mfa'], []], ['pwd', 'otp', 'mfa']), { amr: ['fed', 'mfa', 'pwd', 'otp'], acr: ACR_MFA });
  });

  it('a federated session asked again counts as fed (and mfa where it was multi-factor), never by the upstream’s reported methods', () => {
    assert.deepEqual(authenticationOf(sessionSteps(['fed', 'pwd'])), { amr: ['fed'], acr: ACR_PASSWORD });
    assert.deepEqual(authenticationOf(sessionSteps(['fed', 'otp', 'mfa'])).acr, ACR_MFA);
    assert.deepEqual(sessionSteps(['pwd', 'otp', 'mfa']), ['pwd', 'otp', 'mfa']);
  });
});
