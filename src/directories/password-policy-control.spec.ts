import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePasswordPolicyResponse } from './password-policy-control.js';

/** Response values as slapd 2.5 sends them (the first captured from `ldappasswd -e ppolicy`). */
describe('the password policy response control (draft-behera-ldap-password-policy-11 §6.2)', () => {
  it('reads the error', () => {
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('MAOBAQg=', 'base64')), { error: 8 });
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('30038101' + '00', 'hex')), { error: 0 });
  });

  it('reads either warning, with or without an error', () => {
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('3005a003810102', 'hex')), { graceAuthNsRemaining: 2 });
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('3006a00480020100', 'hex')), { timeBeforeExpiration: 256 });
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('3008a003810101810102', 'hex')), { graceAuthNsRemaining: 1, error: 2 });
  });

  it('an empty or broken value is no answer', () => {
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('3000', 'hex')), {});
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.alloc(0)), {});
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('3009a003', 'hex')), {});
    assert.deepEqual(parsePasswordPolicyResponse(Buffer.from('0403616263', 'hex')), {});
  });
});
