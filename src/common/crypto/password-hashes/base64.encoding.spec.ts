import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePaddedBase64, decodePasslibAdaptedBase64, decodePhcBase64 } from './base64.encoding.js';

describe('decodePhcBase64', () => {
  it('decodes unpadded standard base64', () => {
    assert.deepEqual(decodePhcBase64('c29tZXNhbHQ'), Buffer.from('somesalt'));
    assert.deepEqual(decodePhcBase64('+/8'), Buffer.from([0xfb, 0xff]));
    assert.deepEqual(decodePhcBase64(''), Buffer.alloc(0));
  });

  it('rejects padding, other alphabets, impossible lengths and non-canonical trailing bits', () => {
    assert.equal(decodePhcBase64('c29tZXNhbHQ='), null);
    assert.equal(decodePhcBase64('c29tZXNhbHQ.'), null);
    assert.equal(decodePhcBase64('-_8'), null);
    assert.equal(decodePhcBase64('abcde'), null);
    assert.equal(decodePhcBase64('c29tZXNhbHR'), null); // last char carries a stray bit
  });
});

describe('decodePasslibAdaptedBase64', () => {
  it("reads '.' as '+'", () => {
    assert.deepEqual(decodePasslibAdaptedBase64('./8'), Buffer.from([0xfb, 0xff]));
    assert.equal(decodePasslibAdaptedBase64('+/8'), null);
  });
});

describe('decodePaddedBase64', () => {
  it('requires RFC 4648 padding', () => {
    assert.deepEqual(decodePaddedBase64('c29tZXNhbHQ='), Buffer.from('somesalt'));
    assert.equal(decodePaddedBase64('c29tZXNhbHQ'), null);
    assert.equal(decodePaddedBase64('c29tZXNhbHR='), null);
    assert.equal(decodePaddedBase64('c2=tZXNh'), null);
  });
});
