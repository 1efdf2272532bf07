import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROVIDER_BODY_LIMIT } from '../../../src/oidc/provider/extensions/request-body-replay.js';
import { createMachine, createProject, postForm } from '../support/oidc-fixtures.js';
import { librarySource } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/request-body-replay.ts serves: the way oidc-provider reads a request body itself. */
describe('contract: oidc-provider reads the body with req.iterator while req.readable', () => {
  it('reads an unread body through the iterator, against Content-Length, up to the same limit', () => {
    const reader = librarySource('shared/selective_body.js');
    assert.match(reader, /if \(ctx\.req\.readable\) \{\s*return readBody\(ctx\.req, ctx\.request\.length, ctx\.charset\)/);
    assert.match(reader, /for await \(const chunk of req\.iterator\(\{ destroyOnReturn: false \}\)\)/);
    assert.match(reader, /if \(length !== undefined && received !== length\)/);
    assert.match(reader, new RegExp(`const LIMIT = ${PROVIDER_BODY_LIMIT / 1024} \\* 1024;`));
  });
});

describe('a replayed body reaches the provider: a JWT access token is revocable', () => {
  const svc = useService();

  it('the revoked JWT no longer reads userinfo', async () => {
    const machine = await createMachine(svc, (await createProject(svc)).orgId, 'jwt');
    const auth = { id: machine.clientId, secret: machine.clientSecret };
    const token = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, auth);
    assert.equal(token.status, 200, token.text);
    const userinfo = () => fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal((await userinfo()).status, 200);
    const revoked = await postForm(svc, '/oauth/v2/revoke', { token: token.body.access_token, token_type_hint: 'access_token' }, auth);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await userinfo()).status, 401);
  });
});

describe('a body larger than the provider takes is refused whole, even where a rewrite would shorten it', () => {
  const svc = useService();

  it('revoking a JWT in an oversized form is refused and leaves the token valid', async () => {
    const machine = await createMachine(svc, (await createProject(svc)).orgId, 'jwt');
    const auth = { id: machine.clientId, secret: machine.clientSecret };
    const token = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, auth);
    assert.equal(token.status, 200, token.text);
    const jwt = String(token.body.access_token);
    // The JWT first, then padding to just past the limit: swapped for its short handle, the first
    // PROVIDER_BODY_LIMIT + 1 bytes would fit under the limit.
    const head = `token=${jwt}&token_type_hint=access_token&pad=`;
    const form = { token: jwt, token_type_hint: 'access_token', pad: 'a'.repeat(PROVIDER_BODY_LIMIT + 10 - head.length) };
    const revoked = await postForm(svc, '/oauth/v2/revoke', form, auth);
    assert.equal(revoked.status, 400, revoked.text);
    assert.deepEqual(revoked.body, { error: 'invalid_request', error_description: 'failed to parse the request body' });
    const userinfo = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${jwt}` } });
    assert.equal(userinfo.status, 200, 'the token was not revoked');
  });

  it('an oversized form with an opaque token is refused the same way', async () => {
    const machine = await createMachine(svc, (await createProject(svc)).orgId);
    const auth = { id: machine.clientId, secret: machine.clientSecret };
    const token = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, auth);
    assert.equal(token.status, 200, token.text);
    const revoked = await postForm(svc, '/oauth/v2/revoke', { token: String(token.body.access_token), pad: 'a'.repeat(PROVIDER_BODY_LIMIT) }, auth);
    assert.equal(revoked.status, 400, revoked.text);
    assert.deepEqual(revoked.body, { error: 'invalid_request', error_description: 'failed to parse the request body' });
  });
});
