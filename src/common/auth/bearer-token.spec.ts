import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerToken } from './bearer-token.js';

/** The rules passport-http-bearer 1.0 applied before issue 22 replaced it; the API must keep accepting exactly these. */
describe('bearerToken', () => {
  const request = (authorization?: string, body?: unknown, query?: Record<string, unknown>) => ({
    headers: authorization === undefined ? {} : { authorization },
    body,
    url: query ? `/x?${new URLSearchParams(query as Record<string, string>).toString()}` : '/x',
    query: query ?? {},
  });

  it('takes the token of an Authorization header with the Bearer scheme, in any case', () => {
    assert.equal(bearerToken(request('Bearer abc')), 'abc');
    assert.equal(bearerToken(request('bearer abc')), 'abc');
    assert.equal(bearerToken(request('BEARER abc')), 'abc');
  });

  it('refuses a header that is not exactly two space-separated parts', () => {
    assert.equal(bearerToken(request('Bearer')), null);
    assert.equal(bearerToken(request('Bearer a b')), null);
    assert.equal(bearerToken(request('Bearer  abc')), null);
  });

  it('has no token for another scheme, an empty token or no header', () => {
    assert.equal(bearerToken(request('Basic abc')), undefined);
    assert.equal(bearerToken(request('Bearer ')), undefined);
    assert.equal(bearerToken(request()), undefined);
    assert.equal(bearerToken(request('')), undefined);
  });

  it('takes access_token from the body, else from the query string', () => {
    assert.equal(bearerToken(request(undefined, { access_token: 'from-body' })), 'from-body');
    assert.equal(bearerToken(request(undefined, undefined, { access_token: 'from-query' })), 'from-query');
    assert.equal(bearerToken(request('Basic abc', { access_token: 'from-body' })), 'from-body');
  });

  it('refuses a token sent in more than one place', () => {
    assert.equal(bearerToken(request('Bearer abc', { access_token: 'x' })), null);
    assert.equal(bearerToken(request('Bearer abc', undefined, { access_token: 'x' })), null);
    assert.equal(bearerToken(request(undefined, { access_token: 'x' }, { access_token: 'y' })), null);
  });

  it('gives a repeated query parameter back as sent, for the caller to refuse', () => {
    const repeated = { headers: {}, url: '/x?access_token=a&access_token=b', query: { access_token: ['a', 'b'] } };
    assert.deepEqual(bearerToken(repeated), ['a', 'b']);
  });
});
