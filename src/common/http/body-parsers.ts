import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { MAX_JSON_DEPTH, asUtf8, nestsDeeperThan } from './json-depth.js';
import { invalidTextMessage, invalidTextPath } from '../text/valid-text.js';

/** Media types parsed as JSON: SCIM clients send `application/scim+json` (RFC 7644 §3.1). */
export const JSON_TYPES = ['application/json', 'application/scim+json', 'application/*+json'];

/** A body body-parser refused, before any route ran (so no Nest exception filter sees it). */
export interface BodyProblem {
  status: 400 | 413 | 415;
  kind: 'malformed' | 'tooDeep' | 'invalidText' | 'tooLarge' | 'unsupportedEncoding' | 'unsupportedMediaType';
  message: string;
}

/** How a surface answers a refused body in its own error shape. */
type BodyProblemAnswer = (res: Response, problem: BodyProblem) => void;

/** The refusals of a body, worded once for every reader of one (this parser and a migration's spooled body). */
export const BODY_PROBLEMS = {
  tooLarge: (limitBytes: number): BodyProblem => ({ status: 413, kind: 'tooLarge', message: `request body exceeds the limit of ${limitBytes} bytes` }),
  tooDeep: (): BodyProblem => ({ status: 400, kind: 'tooDeep', message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` }),
  notUtf8: (): BodyProblem => ({ status: 400, kind: 'invalidText', message: 'the body is not valid UTF-8' }),
  unsupportedCharset: (charset: string): BodyProblem => ({
    status: 415,
    kind: 'unsupportedEncoding',
    message: `unsupported charset "${charset.toUpperCase()}"`,
  }),
  /** body-parser's own words for it, which this parser passes on. */
  unsupportedEncoding: (encoding: string): BodyProblem => ({ status: 415, kind: 'unsupportedEncoding', message: `unsupported content encoding "${encoding}"` }),
  notInflatable: (): BodyProblem => ({ status: 400, kind: 'malformed', message: 'the body could not be decompressed' }),
} as const;

/** The admin and management APIs' error shape for a refused body: `{code, message, details}`. */
export function answerAsAdminApi(res: Response, problem: BodyProblem): void {
  res.status(problem.status).json({ code: problem.status, message: problem.message, details: [] });
}

/**
 * JSON body parsing with a size limit: malformed JSON or nesting deeper than MAX_JSON_DEPTH → 400,
 * over the limit → 413 naming the limit, an unsupported encoding → 415, each answered by `answer` in
 * the surface's error shape. The depth is checked on the raw bytes, before JSON.parse and long
 * before any recursive transform or validation, and before authentication.
 */
export function jsonBody(limitBytes: number, answer: BodyProblemAnswer) {
  return [
    express.json({ limit: limitBytes, type: JSON_TYPES, strict: true, verify: refuseDeepNesting }),
    // A lone surrogate or NUL, escaped in the JSON (the raw bytes are checked by `verify`): 400 naming where.
    (req: Request, res: Response, next: NextFunction) => {
      const path = req.body === undefined ? undefined : invalidTextPath(req.body);
      if (path === undefined) return next();
      answer(res, { status: 400, kind: 'invalidText', message: invalidTextMessage(path) });
    },
    (error: Error & { type?: string }, _req: Request, res: Response, next: NextFunction) => {
      const problem = classifyBodyError(error, limitBytes);
      if (!problem) return next(error);
      answer(res, problem);
    },
  ];
}

/** The admin and management APIs' parser: `{code, message, details}` errors, and `{}` for a missing body. */
export function jsonBodyParser(limitBytes: number) {
  const [parse, checkText, onError] = jsonBody(limitBytes, answerAsAdminApi);
  return [
    parse,
    checkText,
    (req: Request, _res: Response, next: NextFunction) => {
      // Express 5 leaves the body undefined when none was sent; validation then sees an empty object.
      if (req.body === undefined && ['POST', 'PUT', 'PATCH'].includes(req.method)) req.body = {};
      next();
    },
    onError,
  ];
}

/**
 * Runs `parsers` only for a request that has a body by body-parser's own test (type-is `hasBody`: a
 * Transfer-Encoding, or a numeric Content-Length, 0 included). Without one, every parser would skip it
 * and `jsonBodyParser` would give POST, PUT and PATCH an empty object: that is done here at once,
 * instead of walking the parsers' seven layers on every GET (BENCHMARKS.md, "Per-request overhead").
 */
export function onlyWithBody(parsers: (req: Request, res: Response, next: NextFunction) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']))) return parsers(req, res, next);
    req.body = EMPTY_BODY_METHODS.has(req.method) ? {} : undefined;
    next();
  };
}

const EMPTY_BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** body-parser's `verify` step: a thrown error's `type` reaches classifyBodyError. */
function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  const utf8 = asUtf8(body, charset);
  if (!utf8) throw refusal(BODY_PROBLEMS.unsupportedCharset(charset));
  // Invalid UTF-8 (a surrogate encoded on its own, ED A0 80, among others) would be decoded to U+FFFD silently.
  if (!isUtf8(utf8)) throw refusal(BODY_PROBLEMS.notUtf8());
  if (nestsDeeperThan(utf8, MAX_JSON_DEPTH)) throw refusal(BODY_PROBLEMS.tooDeep());
}

/** A refusal thrown from body-parser's `verify`, carried to classifyBodyError whole. */
function refusal(problem: BodyProblem): Error & { problem: BodyProblem; status: number } {
  return Object.assign(new Error(problem.message), { problem, status: problem.status });
}

function classifyBodyError(error: Error & { type?: string; problem?: BodyProblem }, limitBytes: number): BodyProblem | null {
  if (error.problem) return error.problem;
  switch (error.type) {
    case 'entity.parse.failed':
      return { status: 400, kind: 'malformed', message: `malformed JSON: ${error.message}` };
    case 'entity.too.large':
      return BODY_PROBLEMS.tooLarge(limitBytes);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, kind: 'unsupportedEncoding', message: error.message };
    default:
      return null;
  }
}
