import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { librarySource } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/post-to-get.ts relies on: oidc-provider answers GET at both endpoints, POST only on request. */
describe('contract: the authorization and end-session endpoints always take GET', () => {
  it('registers GET unconditionally and POST only with enableHttpPostMethods', () => {
    const routes = librarySource('helpers/initialize_app.js');
    assert.match(
      routes,
      /get\('authorization', routes\.authorization, authError, \.\.\.authorization\);\s*if \(enableHttpPostMethods\) \{\s*post\('authorization'/,
    );
    assert.match(routes, /if \(enableHttpPostMethods\) \{\s*post\('end_session'[^\n]*\n\s*\}\s*get\('end_session', routes\.end_session/);
  });
});

describe('a posted authorization request becomes a GET', () => {
  const svc = useService();

  const post = (type: string, body: string) =>
    fetch(new URL('/oauth/v2/authorize?a=1', svc.url), { method: 'POST', headers: { 'content-type': type }, body, redirect: 'manual' });

  it('a form is answered 303 with its parameters after the query, not cached', async () => {
    const res = await post('application/x-www-form-urlencoded', 'client_id=c&scope=openid');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/oauth/v2/authorize?a=1&client_id=c&scope=openid');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('any other body is refused with an OAuth error', async () => {
    const res = await post('application/json', '{}');
    assert.equal(res.status, 415);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(await res.text(), '{"error":"invalid_request","error_description":"the request body must be application/x-www-form-urlencoded"}');
  });
});
