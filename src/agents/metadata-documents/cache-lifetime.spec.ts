import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DOCUMENT_CACHE_MS, MIN_DOCUMENT_CACHE_MS, documentCacheMs } from './cache-lifetime.js';

const NOW = Date.parse('2026-11-27T07:00:00Z');
const lifetime = (headers: Record<string, string>) => documentCacheMs(new Headers(headers), NOW);

describe('metadata document cache lifetime', () => {
  it('follows max-age and Expires within [5 min, 24 h]', () => {
    assert.equal(lifetime({ 'cache-control': 'public, max-age=3600' }), 3_600_000);
    assert.equal(lifetime({ 'cache-control': 'max-age=10' }), MIN_DOCUMENT_CACHE_MS, 'clamped up');
    assert.equal(lifetime({ 'cache-control': 'max-age=31536000' }), MAX_DOCUMENT_CACHE_MS, 'clamped down');
    assert.equal(lifetime({ expires: new Date(NOW + 7_200_000).toUTCString() }), 7_200_000);
    assert.equal(lifetime({ expires: new Date(NOW + 7_200_000).toUTCString(), date: new Date(NOW - 3_600_000).toUTCString() }), 10_800_000, 'against Date');
    assert.equal(lifetime({ 'cache-control': 'max-age=600', expires: new Date(NOW + 7_200_000).toUTCString() }), 600_000, 'max-age first');
  });

  it('counts no-store, no-cache, a past Expires and no header as the minimum', () => {
    assert.equal(lifetime({ 'cache-control': 'no-store' }), MIN_DOCUMENT_CACHE_MS);
    assert.equal(lifetime({ 'cache-control': 'max-age=3600, no-cache' }), MIN_DOCUMENT_CACHE_MS);
    assert.equal(lifetime({ expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }), MIN_DOCUMENT_CACHE_MS);
    assert.equal(lifetime({ expires: 'garbage' }), MIN_DOCUMENT_CACHE_MS);
    assert.equal(lifetime({}), MIN_DOCUMENT_CACHE_MS);
  });
});
