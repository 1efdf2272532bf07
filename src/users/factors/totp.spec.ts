import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newTotpSecret, totpStepOf, totpUri } from './totp.js';

/** RFC 6238 Appendix B: the SHA-1 key "12345678901234567890" (base32 below); 6-digit codes are the last six digits. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: Array<[seconds: number, code: string]> = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
  [20000000000, '353130'],
];

describe('TOTP (RFC 6238: SHA-1, 6 digits, 30 s)', () => {
  it('accepts the RFC 6238 test vectors at their time, naming their step', () => {
    for (const [seconds, code] of RFC_VECTORS) assert.equal(totpStepOf(RFC_SECRET, code, seconds * 1000), Math.floor(seconds / 30), `T=${seconds}`);
  });

  it('accepts the previous and the next step, nothing further', () => {
    const [seconds, code] = RFC_VECTORS[3];
    const step = Math.floor(seconds / 30);
    assert.equal(totpStepOf(RFC_SECRET, code, (seconds + 30) * 1000), step);
    assert.equal(totpStepOf(RFC_SECRET, code, (seconds - 30) * 1000), step);
    assert.equal(totpStepOf(RFC_SECRET, code, (seconds + 60) * 1000), undefined);
    assert.equal(totpStepOf(RFC_SECRET, code, (seconds - 60) * 1000), undefined);
  });

  it('refuses what is not six digits, and takes spaces as typed', () => {
    const [seconds, code] = RFC_VECTORS[0];
    for (const bad of ['', '28708', '2870822', 'abcdef', '28708x', '٢٨٧٠٨٢']) assert.equal(totpStepOf(RFC_SECRET, bad, seconds * 1000), undefined, bad);
    assert.equal(totpStepOf(RFC_SECRET, `287 082`, seconds * 1000), Math.floor(seconds / 30));
    assert.equal(code, '287082');
  });

  it('makes 160-bit base32 secrets and an otpauth:// URI an authenticator app reads', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.notEqual(newTotpSecret(), secret);
    const uri = new URL(totpUri(secret, 'Portcullis', 'ada@example.com'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'Portcullis');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(decodeURIComponent(uri.pathname), '/Portcullis:ada@example.com');
  });
});
