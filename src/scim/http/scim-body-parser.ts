import type { NextFunction, Request, Response } from 'express';
import { jsonBody } from '../../common/http/body-parsers.js';
import type { BodyProblem } from '../../common/http/body-parsers.js';
import { scimErrorBody } from '../errors/scim-error.js';
import { MAX_BULK_PAYLOAD_BYTES, SCIM_MEDIA_TYPE } from '../scim.constants.js';

const ACCEPTED_TYPES = [SCIM_MEDIA_TYPE, 'application/json'];

/**
 * JSON parsing for `/scim/v2`, registered before the general parser: RFC 7644 §3.1 lets clients send
 * `application/scim+json` or `application/json`; the largest accepted body is the bulk
 * `maxPayloadSize` (docs/product-rules.md, "SCIM"). Malformed JSON and oversize bodies fail before any route runs, so they
 * are answered here, as SCIM envelopes (400 invalidSyntax, 413).
 */
export function scimBodyParser() {
  const answer = (res: Response, problem: BodyProblem) =>
    res
      .status(problem.status)
      .type(SCIM_MEDIA_TYPE)
      .send(JSON.stringify(scimBody(problem)));
  return [refuseOtherMediaTypes(answer), ...jsonBody(MAX_BULK_PAYLOAD_BYTES, answer)];
}

/**
 * RFC 7644 §3.1: SCIM responses are `application/scim+json`. Set before anything answers; Express's
 * `res.json` keeps a type already set, the error filter and the parser errors set it themselves. A
 * middleware rather than an interceptor on each SCIM controller: an interceptor puts an Observable
 * chain around every request (BENCHMARKS.md, "Per-request overhead").
 */
export function scimResponseType(_req: Request, res: Response, next: NextFunction): void {
  res.type(SCIM_MEDIA_TYPE);
  next();
}

/**
 * RFC 7644 §3.1 / §3.8: a request body is `application/scim+json` (or `application/json`). Any other
 * body, or one without a Content-Type, is 415 before anything else reads it, rather than being
 * skipped by the parser and then reported as a missing or malformed resource.
 */
function refuseOtherMediaTypes(answer: (res: Response, problem: BodyProblem) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!carriesBody(req) || req.is(ACCEPTED_TYPES)) return next();
    const sent = req.headers['content-type'] ?? 'none';
    answer(res, { status: 415, kind: 'unsupportedMediaType', message: `the request body must be ${ACCEPTED_TYPES.join(' or ')}, not ${sent}` });
  };
}

/** A DELETE or GET sent with `Content-Length: 0` (and no type) carries no body to refuse. */
function carriesBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

function scimBody(problem: BodyProblem): Record<string, unknown> {
  switch (problem.kind) {
    case 'malformed':
    case 'tooDeep':
      // RFC 7644 §3.12 invalidSyntax: "The request body message structure was invalid".
      return scimErrorBody(400, problem.message, 'invalidSyntax', 'invalidSyntax');
    case 'invalidText':
      return scimErrorBody(400, problem.message, 'invalidValue', 'invalidValue');
    case 'tooLarge':
      return scimErrorBody(413, problem.message, undefined, 'payloadTooLarge');
    case 'unsupportedEncoding':
    case 'unsupportedMediaType':
      return scimErrorBody(415, problem.message, undefined, 'unsupportedMediaType');
  }
}
