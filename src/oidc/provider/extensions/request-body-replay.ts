import type { IncomingMessage } from 'node:http';

/** oidc-provider's body limit (lib/shared/selective_body.js): a larger body is refused there, not here. */
export const PROVIDER_BODY_LIMIT = 56 * 1024;

/**
 * Reading a form body before oidc-provider, once, and handing it over again, for the rewrites of
 * docs/decisions/oidc-before-express.md. oidc-provider reads a body itself (lib/shared/selective_body.js):
 * with `req.iterator({ destroyOnReturn: false })` while `req.readable`, and checks the body against
 * Content-Length; otherwise it falls back to an upstream parser's `req.body`. The replay serves the
 * first path, so the provider parses the rewritten body exactly as it would the client's.
 */

/** A rewrite of a form body before oidc-provider reads it; body-rewrites.ts lists them in the order they run. */
export interface BodyRewrite {
  /** From the request line and headers alone: whether this request is one it edits (only then is its body read). */
  wants(req: IncomingMessage, path: string): boolean;
  /** From the raw bytes, without parsing: false only when the form surely holds nothing it edits. */
  mayEdit(body: Buffer): boolean;
  /** Edits the parsed form; true when it changed something. */
  edit(form: URLSearchParams, req: IncomingMessage): boolean;
}

/** A body read up to a limit; of a larger one, `bytes` holds just one byte more than the limit. */
export interface BoundedBody {
  bytes: Buffer;
  overLimit: boolean;
}

/** Whether the body is declared a form: the rewrites edit no other kind, and leave any other to the provider. */
export function isForm(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

/**
 * The one reader of a body before oidc-provider. Past `limit` it stops reading (the request is paused)
 * and resolves with `overLimit`; it rejects when the request fails or ends before its body did.
 */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<BoundedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const closed = () => reject(new Error('the request ended before its body was read'));
    const done = () => {
      req.off('data', onData).off('end', done).off('error', reject).off('close', closed);
      const bytes = chunks.length === 1 && size <= limit ? chunks[0] : Buffer.concat(chunks, Math.min(size, limit + 1));
      resolve({ bytes, overLimit: size > limit });
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit + chunk.length) chunks.push(chunk);
      if (size > limit) {
        req.pause();
        done();
      }
    };
    req.on('data', onData).on('end', done).on('error', reject).on('close', closed);
  });
}

/**
 * Reads the form body once, parses it once if a rewrite may edit it, serializes it again only when one did, and
 * hands it to the provider. A body larger than the provider takes is handed over unedited, for the provider to
 * refuse as it refuses any other; a body of another type is not read here.
 */
export async function rewriteFormBody(req: IncomingMessage, rewrites: BodyRewrite[]): Promise<void> {
  if (!isForm(req)) return;
  const { bytes, overLimit } = await readBoundedBody(req, PROVIDER_BODY_LIMIT);
  replayBody(
    req,
    overLimit
      ? bytes
      : edited(
          req,
          bytes,
          rewrites.filter((rewrite) => rewrite.mayEdit(bytes)),
        ),
  );
}

function edited(req: IncomingMessage, body: Buffer, rewrites: BodyRewrite[]): Buffer {
  if (rewrites.length === 0) return body;
  const form = new URLSearchParams(body.toString('utf8'));
  let changed = false;
  for (const rewrite of rewrites) changed = rewrite.edit(form, req) || changed;
  return changed ? Buffer.from(form.toString(), 'utf8') : body;
}

/**
 * Hands oidc-provider an unread body again: it reads with `req.iterator()` while `req.readable`, and
 * checks Content-Length. A plain one-chunk async iterator, cheaper than an async generator.
 */
function replayBody(req: IncomingMessage, body: Buffer): void {
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
