import type { IncomingMessage } from 'node:http';

/** oidc-provider's body limit (lib/shared/selective_body.js): a larger body is refused there, not here. */
export const PROVIDER_BODY_LIMIT = 56 * 1024;

/**
 * Reading a form body before oidc-provider and handing it over again, for the rewrites of
 * docs/decisions/oidc-before-express.md. oidc-provider reads a body itself (lib/shared/selective_body.js):
 * with `req.iterator({ destroyOnReturn: false })` while `req.readable`, and checks the body against
 * Content-Length; otherwise it falls back to an upstream parser's `req.body`. The replay serves the
 * first path, so the provider parses the rewritten body exactly as it would the client's.
 */

/** The raw form body; of a larger one than oidc-provider accepts, just enough for it to refuse it. */
export function readForm(req: IncomingMessage): Promise<Buffer | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const closed = () => reject(new Error('the request ended before its body was read'));
    const done = () => {
      req.off('data', onData).off('end', done).off('error', reject).off('close', closed);
      resolve(chunks.length === 1 && size <= PROVIDER_BODY_LIMIT ? chunks[0] : Buffer.concat(chunks, Math.min(size, PROVIDER_BODY_LIMIT + 1)));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= PROVIDER_BODY_LIMIT + chunk.length) chunks.push(chunk);
      if (size > PROVIDER_BODY_LIMIT) {
        req.pause();
        done();
      }
    };
    req.on('data', onData).on('end', done).on('error', reject).on('close', closed);
  });
}

/**
 * Hands oidc-provider an unread body again: it reads with `req.iterator()` while `req.readable`, and
 * checks Content-Length. A plain one-chunk async iterator, cheaper than an async generator.
 */
export function replayBody(req: IncomingMessage, body: Buffer): void {
  req.headers['content-length'] = String(body.length);
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: () => {
      let sent = false;
      return {
        [Symbol.asyncIterator]() {
          return this;
        },
        next: () => Promise.resolve(sent ? { done: true, value: undefined } : ((sent = true), { done: false, value: body })),
        return: () => Promise.resolve({ done: true, value: undefined }),
      };
    },
  });
}
