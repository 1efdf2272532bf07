import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import Koa from 'koa';
import type { OidcContext } from 'oidc-provider';
import { invalidGrant, oauthErrorBody, setOAuthError, writeOAuthError } from './oauth-errors.js';

const servers: { close(): void }[] = [];
after(() => servers.forEach((server) => server.close()));

/** The answer a real HTTP server gives with `handler`, read back over loopback. */
async function answerOf(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler).listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), text: await res.text() };
}

describe('OAuth error answers (RFC 6749 §5.2)', () => {
  it('has error_description only when there is one', () => {
    assert.deepEqual(oauthErrorBody('server_error'), { error: 'server_error' });
    assert.deepEqual(oauthErrorBody('invalid_request', 'why'), { error: 'invalid_request', error_description: 'why' });
  });

  it('writes status, JSON body and no-store on a Node response', async () => {
    const answer = await answerOf((_req, res) => writeOAuthError(res, 413, 'invalid_request', 'the request body is too large'));
    assert.deepEqual(answer, {
      status: 413,
      type: 'application/json',
      cacheControl: 'no-store',
      text: '{"error":"invalid_request","error_description":"the request body is too large"}',
    });
    assert.equal((await answerOf((_req, res) => writeOAuthError(res, 500, 'server_error'))).text, '{"error":"server_error"}');
  });

  it('leaves an answer already under way alone', async () => {
    const answer = await answerOf((_req, res) => {
      res.writeHead(303, { location: '/elsewhere' }).end();
      writeOAuthError(res, 400, 'invalid_request', 'late');
    });
    assert.equal(answer.status, 303);
    assert.equal(answer.text, '');
  });

  it('replaces the answer oidc-provider prepared on a Koa context', async () => {
    const koa = new Koa();
    koa.use(async (ctx) => {
      ctx.status = 500;
      ctx.body = { error: 'server_error', error_description: 'oops' };
      setOAuthError(ctx as unknown as OidcContext, 503, 'temporarily_unavailable', 'the database is unavailable; retry later');
    });
    const answer = await answerOf(koa.callback());
    assert.deepEqual(answer, {
      status: 503,
      type: 'application/json; charset=utf-8',
      cacheControl: 'no-store',
      text: '{"error":"temporarily_unavailable","error_description":"the database is unavailable; retry later"}',
    });
  });

  it("names the failed check in invalid_grant's error_description", () => {
    const error = invalidGrant('the assertion has expired') as Error & { status: number; error: string; error_description: string };
    assert.equal(error.status, 400);
    assert.equal(error.error, 'invalid_grant');
    assert.equal(error.error_description, 'the assertion has expired');
  });
});
