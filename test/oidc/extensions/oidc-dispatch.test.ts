import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/oidc-dispatch.middleware.ts relies on: the provider as a plain Node request listener. */
describe('contract: Provider#callback', () => {
  it('returns a (req, res) request listener', () => {
    const handler = unpatchedProvider().callback();
    assert.equal(typeof handler, 'function');
    assert.equal(handler.length, 2);
  });
});

describe('OIDC paths go to the provider before Express, everything else to Express', () => {
  const svc = useService();

  it('the provider answers its paths, with the access log around them', async () => {
    const res = await fetch(new URL('/.well-known/openid-configuration', svc.url));
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { issuer: string }).issuer, svc.config.publicUrl);
    assert.ok(res.headers.get('x-request-id'), 'the same request id as for the API');
  });

  it('a JSON body at the token endpoint is read by the provider, not by a JSON parser before it', async () => {
    const res = await fetch(new URL('/oauth/v2/token', svc.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
    const body = (await res.json()) as { error: string };
    assert.equal(res.status, 400);
    assert.equal(body.error, 'invalid_request');
  });

  it('other paths still reach Express', async () => {
    const res = await svc.api('GET', '/oauth-but-not-the-provider', {});
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.message, 'Cannot GET /oauth-but-not-the-provider', "Nest's own answer");
  });
});
