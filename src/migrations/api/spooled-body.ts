import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { BODY_PROBLEMS, JSON_TYPES, answerAsAdminApi } from '../../common/http/body-parsers.js';
import type { BodyProblem } from '../../common/http/body-parsers.js';
import { JsonDepth, MAX_JSON_DEPTH } from '../../common/http/json-depth.js';

/** A request body written to a file of its own, for the route to read in parts; removed when the response is done. */
export class SpooledBody {
  constructor(readonly path: string) {}
}

const PREFIX = 'portcullis-body-';

/**
 * The files of bodies a process stopped before it removed them (a crash, a kill): a day after they were written,
 * when no migration can still be reading them. They hold password hashes, readable by the service's user only.
 */
export async function removeLeftBodies(within = tmpdir(), now = Date.now()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(within).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(within, name);
    const info = await stat(dir).catch(() => undefined);
    if (!info || now - info.mtimeMs < 24 * 3600_000) continue;
    await rm(dir, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** A body refused on its way to the file, with the same problems the general parser names (body-parsers.ts). */
class RefusedBody extends Error {
  constructor(readonly problem: BodyProblem) {
    super(problem.message);
  }
}

/**
 * A migration's body is not parsed into memory: an export of 100,000 users is up to 200 MB of text, and parsed whole
 * it is held twice (the text and its objects) while the users are written. It is written to a file readable by
 * this process only, with the checks every JSON body gets on the way (the limit on the inflated bytes, UTF-8,
 * nesting depth; docs/migrating.md, "Large exports"), and the route reads the file a part at a time. The file is
 * removed when the response is done. Answers as the admin API's body parser does (`{code, message, details}`).
 */
export function spooledJsonBody(limitBytes: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is(JSON_TYPES)) return next();
    spool(req, limitBytes).then(
      (body) => {
        res.on('close', () => void rm(join(body.path, '..'), { recursive: true, force: true }));
        req.body = body;
        // body-parser's mark: the general parser after this one leaves the body alone.
        (req as { _body?: boolean })._body = true;
        next();
      },
      (error: Error) => {
        // What is left of the body is read and dropped, so that the answer reaches the client.
        req.unpipe();
        req.resume();
        if (!(error instanceof RefusedBody)) return next(error);
        answerAsAdminApi(res.set('connection', 'close'), error.problem);
      },
    );
  };
}

async function spool(req: Request, limitBytes: number): Promise<SpooledBody> {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) throw new RefusedBody(BODY_PROBLEMS.unsupportedCharset(charset));
  const inflate = inflaterFor(req.headers['content-encoding']);
  if (!inflate && Number(req.headers['content-length']) > limitBytes) throw new RefusedBody(BODY_PROBLEMS.tooLarge(limitBytes));
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  const path = join(dir, 'body.json');
  const source = new PassThrough();
  const checks = new BodyChecks(limitBytes);
  req.pipe(inflate ?? source);
  if (inflate) inflate.on('error', (error) => source.destroy(error)).pipe(source);
  const aborted = () => {
    if (!req.complete) source.destroy(new Error('the request was aborted'));
  };
  req.on('close', aborted);
  try {
    await pipeline(source, checks, createWriteStream(path, { mode: 0o600 }));
    return new SpooledBody(path);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (error instanceof RefusedBody) throw error;
    if ((error as { code?: string }).code?.startsWith('Z_')) {
      throw new RefusedBody(BODY_PROBLEMS.notInflatable());
    }
    throw error;
  } finally {
    req.off('close', aborted);
  }
}

function inflaterFor(encoding = 'identity'): Transform | undefined {
  switch (encoding.toLowerCase()) {
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new RefusedBody(BODY_PROBLEMS.unsupportedEncoding(encoding));
  }
}

/** The inflated bytes counted against the limit, decoded as UTF-8 (RFC 8259 §8.1) and their nesting watched. */
class BodyChecks extends Transform {
  private bytes = 0;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private readonly depth = new JsonDepth(MAX_JSON_DEPTH);

  constructor(private readonly limitBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, chunk?: Buffer) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limitBytes) return done(new RefusedBody(BODY_PROBLEMS.tooLarge(this.limitBytes)));
    try {
      this.utf8.decode(chunk, { stream: true });
    } catch {
      return done(new RefusedBody(BODY_PROBLEMS.notUtf8()));
    }
    if (this.depth.exceededBy(chunk)) return done(new RefusedBody(BODY_PROBLEMS.tooDeep()));
    done(null, chunk);
  }

  override _flush(done: (error?: Error | null) => void): void {
    try {
      this.utf8.decode();
      done();
    } catch {
      done(new RefusedBody(BODY_PROBLEMS.notUtf8()));
    }
  }
}
