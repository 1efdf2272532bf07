import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECOVERY_CODE_COUNT, newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.js';

describe('recovery codes', () => {
  it('are ten distinct codes of twelve unambiguous characters', () => {
    const codes = newRecoveryCodes();
    assert.equal(codes.length, RECOVERY_CODE_COUNT);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
  });

  it('are read as typed: any case, with or without dashes and spaces, misread letters mapped', () => {
    const [code] = newRecoveryCodes();
    const plain = code.replace(/-/g, '');
    assert.equal(normalizeRecoveryCode(code), plain);
    assert.equal(normalizeRecoveryCode(code.toLowerCase()), plain);
    assert.equal(normalizeRecoveryCode(` ${plain.slice(0, 6)} ${plain.slice(6)} `), plain);
    assert.equal(normalizeRecoveryCode('O0IL-1111-0000'), '001111110000');
  });

  it('refuse anything else', () => {
    for (const bad of ['', 'ABCD-EFGH', 'ABCD-EFGH-JKMN-P', 'ABCD-EFGH-JKU0', '123456', 'ABCD_EFGH_JKMN'])
      assert.equal(normalizeRecoveryCode(bad), undefined, bad);
  });
});
