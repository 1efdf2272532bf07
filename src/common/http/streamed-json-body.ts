import type { NextFunction, Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import Assembler from 'stream-json/assembler.js';
import { jsonParser } from 'stream-json/parser.js';
import type { BodyProblem } from './body-parsers.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { invalidTextMessage, invalidTextPath } from '../text/valid-text.js';

type Token = { name: string; value?: unknown };

/**
 * A JSON body parsed as it arrives, for the bodies that carry a whole export (docs/migrating.md): the bytes are
 * never gathered, so the document is held once, as the parsed value, and never also as a buffer and a string
 * beside it (100,000 users are about 60 MB of text). It refuses what `jsonBodyParser` refuses, with the same
 * answers: more than `limitBytes` (after decompression) 413, malformed JSON, invalid UTF-8, nesting deeper than
 * MAX_JSON_DEPTH, a lone surrogate or NUL 400, a charset or encoding it does not know 415. A request that is not
 * JSON is left to the next parser.
 */
export function streamedJsonBody(limitBytes: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is(['application/json', 'application/*+json'])) return next();
    const refuse = (problem: BodyProblem) => {
      req.unpipe();
      req.resume(); // read the rest away, so the answer reaches a client still sending
      if (!res.headersSent) res.status(problem.status).json({ code: problem.status, message: problem.message, details: [] });
    };
    const charset = /;\s*charset=["']?([^"';\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) return refuse(unsupported(`unsupported charset "${charset.toUpperCase()}"`));
    const declared = Number(req.headers['content-length']);
    if (declared > limitBytes) return refuse(tooLarge(limitBytes));
    const source = decoded(req);
    if (!source) return refuse(unsupported(`unsupported content encoding "${req.headers['content-encoding']}"`));
    const document = new StreamedDocument(limitBytes);
    source.on('data', (chunk: Buffer) => {
      const problem = document.add(chunk);
      if (problem) {
        source.removeAllListeners('data');
        refuse(problem);
      }
    });
    source.on('error', () => refuse({ status: 400, kind: 'malformed', message: 'malformed JSON: the body could not be read or decompressed' }));
    source.on('end', () => {
      if (res.headersSent) return;
      const result = document.end();
      if ('problem' in result) return refuse(result.problem);
      req.body = result.value;
      next();
    });
  };
}

/** The body's bytes after its Content-Encoding (RFC 9110 §8.4), as body-parser inflates them; undefined for an unknown one. */
function decoded(req: Request): Readable | undefined {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  const inflate = encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  return inflate && req.pipe(inflate);
}

/** stream-json's parser and assembler, fed text decoded as strict UTF-8 (RFC 8259 §8.1), counting bytes and depth. */
class StreamedDocument {
  private readonly parse = jsonParser({ packValues: true, streamValues: false });
  private readonly assembler = new Assembler();
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private bytes = 0;
  private depth = 0;

  constructor(private readonly limitBytes: number) {}

  add(chunk: Buffer): BodyProblem | undefined {
    this.bytes += chunk.length;
    if (this.bytes > this.limitBytes) return tooLarge(this.limitBytes);
    return this.feed(() => this.parse(this.utf8.decode(chunk, { stream: true })));
  }

  end(): { value: unknown } | { problem: BodyProblem } {
    // Express 5 leaves a body of no bytes undefined, and jsonBodyParser makes it `{}`: the same here.
    if (this.bytes === 0) return { value: {} };
    const problem = this.feed(() => this.parse(this.utf8.decode())) ?? this.feed(() => this.flush());
    if (problem) return { problem };
    if (!this.assembler.done) return { problem: malformed('Unexpected end of JSON input') };
    const value: unknown = this.assembler.current;
    const path = invalidTextPath(value);
    if (path !== undefined) return { problem: { status: 400, kind: 'invalidText', message: invalidTextMessage(path) } };
    return { value };
  }

  /** A flushable stage is called with `none` once its input has ended (stream-chain's contract), for its last tokens. */
  private flush(): unknown {
    return (this.parse as unknown as (end: typeof none) => unknown)(none);
  }

  private feed(step: () => unknown): BodyProblem | undefined {
    try {
      const out = step();
      if (out === none) return undefined;
      for (const token of (isMany(out) ? getManyValues(out) : [out]) as Token[]) {
        if (token.name === 'startObject' || token.name === 'startArray') {
          if (++this.depth > MAX_JSON_DEPTH) return tooDeep();
        } else if (token.name === 'endObject' || token.name === 'endArray') this.depth--;
        (this.assembler as unknown as Record<string, (value: unknown) => void>)[token.name]?.(token.value);
      }
      return undefined;
    } catch (error) {
      return error instanceof TypeError && /encoded data was not valid/.test(error.message)
        ? { status: 400, kind: 'invalidText', message: 'the body is not valid UTF-8' }
        : malformed((error as Error).message);
    }
  }
}

function tooLarge(limitBytes: number): BodyProblem {
  return { status: 413, kind: 'tooLarge', message: `request body exceeds the limit of ${limitBytes} bytes` };
}

function tooDeep(): BodyProblem {
  return { status: 400, kind: 'tooDeep', message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` };
}

function malformed(detail: string): BodyProblem {
  return { status: 400, kind: 'malformed', message: `malformed JSON: ${detail}` };
}

function unsupported(message: string): BodyProblem {
  return { status: 415, kind: 'unsupportedEncoding', message };
}
