import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonDepth, asUtf8, nestsDeeperThan } from './json-depth.js';

const deeper = (text: string, limit: number) => nestsDeeperThan(Buffer.from(text, 'utf8'), limit);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects alike', () => {
    assert.equal(deeper('[[{"a":[1]}]]', 4), false);
    assert.equal(deeper('[[{"a":[1]}]]', 3), true);
    assert.equal(deeper('{"a":{"b":{}},"c":[]}', 3), false);
    assert.equal(deeper('{"a":{"b":{}},"c":[]}', 2), true);
  });
  it('ignores brackets inside strings, escaped quotes included', () => {
    assert.equal(deeper(`{"a":"[[[[{{{{","b":"\\"[[[[","c":"\\\\"}`, 1), false);
    assert.equal(deeper(`["\\\\",[["x"]]]`, 2), true);
  });
  it('is not fooled by multi-byte characters', () => {
    assert.equal(deeper(`["é€😀[[[["]`, 1), false);
  });
  it('reads UTF-16 bodies after re-encoding them', () => {
    // U+225B is the bytes 5B 22 in UTF-16LE: "[" and a quote, if the bytes were read as they are.
    const utf16 = Buffer.from('[["\u225b"]]', 'utf16le');
    assert.equal(nestsDeeperThan(asUtf8(utf16, 'utf-16le')!, 1), true);
    assert.equal(nestsDeeperThan(asUtf8(utf16, 'utf-16le')!, 2), false);
    assert.equal(asUtf8(utf16, 'utf-7'), undefined);
  });

  it('reads a text in chunks as it reads it whole, wherever the chunks are cut', () => {
    const text = Buffer.from(JSON.stringify({ 'a"[[[': ['\\', [{ b: ']]]"\\' }]], c: [[[]]] }), 'utf8');
    for (const limit of [2, 3, 4]) {
      const whole = nestsDeeperThan(text, limit);
      for (let cut = 0; cut <= text.length; cut++) {
        const depth = new JsonDepth(limit);
        const chunked = depth.exceededBy(text.subarray(0, cut)) || depth.exceededBy(text.subarray(cut));
        assert.equal(chunked, whole, `limit ${limit}, cut at ${cut}`);
      }
    }
  });
});
