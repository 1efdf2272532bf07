import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import express from 'express';
import { AppLogger } from './logging.js';

describe('AppLogger', () => {
  it('puts the request id on every line logged while a request runs, and logs no query string or credentials', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
        );
        done();
      },
    });
    const logger = new AppLogger({ logLevel: 'info' }, sink);
    const app = express();
    app.use(logger.requestMiddleware());
    let seenId: unknown;
    app.get('/work', async (req, res) => {
      seenId = (req as { id?: unknown }).id;
      await new Promise((r) => setTimeout(r, 5));
      logger.log('doing the work', 'WorkController');
      logger.error({ err: new Error('boom') }, 'failed politely', 'WorkController');
      res.json({ ok: true });
    });
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/work?filter=secret-value`, {
        headers: { 'x-request-id': 'req-42', authorization: 'Bearer top-secret-token', cookie: 'session=abc' },
      });
      assert.equal(res.headers.get('x-request-id'), 'req-42');
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      server.close();
    }
    assert.equal(seenId, 'req-42', 'req.id, which the error filters quote');
    const work = lines.find((l) => l.msg === 'doing the work');
    assert.equal(work?.reqId, 'req-42');
    assert.equal(work?.context, 'WorkController');
    const failed = lines.find((l) => l.msg === 'failed politely');
    assert.equal(failed?.reqId, 'req-42');
    assert.equal((failed?.err as { message: string } | undefined)?.message, 'boom');
    const completed = lines.find((l) => l.msg === 'request completed');
    assert.deepEqual(completed?.req, { id: 'req-42', method: 'GET', path: '/work' });
    const all = JSON.stringify(lines);
    assert.doesNotMatch(all, /secret-value|top-secret-token|session=abc/);
  });

  it('logs a request the client abandoned before the answer as aborted, with its id', { timeout: 10_000 }, async () => {
    // Waits on events, not on fixed sleeps: on a loaded CI machine 50 ms was not always enough for the
    // request to arrive or for the close to be seen.
    const lines: Array<Record<string, unknown>> = [];
    let sawAbort!: () => void;
    const abortLogged = new Promise<void>((resolve) => (sawAbort = resolve));
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        for (const line of chunk
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))) {
          lines.push(line);
          if (line.msg === 'request aborted') sawAbort();
        }
        done();
      },
    });
    const logger = new AppLogger({ logLevel: 'info' }, sink);
    const app = express();
    app.use(logger.requestMiddleware());
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', () => arrived()); // never answers
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      const abort = new AbortController();
      const pending = fetch(`http://127.0.0.1:${port}/slow`, { headers: { 'x-request-id': 'gone-1' }, signal: abort.signal }).catch(() => undefined);
      await requestArrived;
      abort.abort();
      await pending;
      await abortLogged;
    } finally {
      server.close();
      server.closeAllConnections();
    }
    const aborted = lines.find((l) => l.msg === 'request aborted');
    assert.deepEqual(aborted?.req, { id: 'gone-1', method: 'GET', path: '/slow' });
    assert.equal(aborted?.level, 50);
    assert.equal(
      lines.find((l) => l.msg === 'request completed'),
      undefined,
    );
  });

  it('logs outside a request without a request id', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) });
    new AppLogger({ logLevel: 'info' }, sink).log('starting', 'Main');
    const line = JSON.parse(lines[0]);
    assert.equal(line.msg, 'starting');
    assert.equal(line.reqId, undefined);
  });

  it('keeps each id while requests overlap; once none is in flight its storage is off, and a line left behind has no id', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
    const logger = new AppLogger({ logLevel: 'info' }, sink);
    const middleware = logger.requestMiddleware();
    let releaseSlow: () => void = () => undefined;
    const slowMayEnd = new Promise<void>((r) => (releaseSlow = r));
    let leftBehind: Promise<void> = Promise.resolve();
    const server = createServer((req, res) =>
      middleware(req, res, async () => {
        if (req.url === '/slow') {
          await slowMayEnd;
          logger.log('slow, after the fast one ended', 'Test');
          // Work the request leaves behind, logged after every request has ended.
          leftBehind = new Promise((r) => setTimeout(() => (logger.log('left behind', 'Test'), r()), 50));
        } else logger.log('fast', 'Test');
        res.end('ok');
      }),
    );
    server.listen(0);
    try {
      await once(server, 'listening');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const slow = fetch(`${url}/slow`, { headers: { 'x-request-id': 'slow-1' } });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(await (await fetch(`${url}/fast`, { headers: { 'x-request-id': 'fast-1' } })).text(), 'ok');
      releaseSlow();
      assert.equal(await (await slow).text(), 'ok');
      await leftBehind;
    } finally {
      server.close();
    }
    assert.equal(lines.find((l) => l.msg === 'fast')?.reqId, 'fast-1');
    assert.equal(lines.find((l) => l.msg === 'slow, after the fast one ended')?.reqId, 'slow-1');
    assert.equal(lines.find((l) => l.msg === 'left behind')?.reqId, undefined);
  });

  it('finds the request id of a request served in another storage (ownStorage: false) through findRequestsWith', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
    const logger = new AppLogger({ logLevel: 'info' }, sink);
    // As oidc-provider does: the library's own storage holds the request while it serves it.
    const library = new AsyncLocalStorage<{ req: IncomingMessage }>();
    logger.findRequestsWith(() => library.getStore()?.req);
    const middleware = logger.requestMiddleware({ ownStorage: false });
    const server = createServer((req, res) =>
      middleware(req, res, () =>
        library.run({ req }, async () => {
          await new Promise((r) => setImmediate(r));
          logger.log('inside the library', 'Provider');
          res.end('ok');
        }),
      ),
    );
    server.listen(0);
    try {
      await once(server, 'listening');
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, { headers: { 'x-request-id': 'oidc-7' } });
      assert.equal(await res.text(), 'ok');
    } finally {
      server.close();
    }
    logger.log('after it', 'Main');
    assert.equal(lines.find((l) => l.msg === 'inside the library')?.reqId, 'oidc-7');
    assert.equal(lines.find((l) => l.msg === 'after it')?.reqId, undefined);
  });
});
