import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { scimErrorBody } from '../errors/scim-error.js';
import { MAX_BULK_PAYLOAD_BYTES, SCIM_MEDIA_TYPE } from '../scim.constants.js';

/**
 * JSON parsing for `/scim/v2`, registered before the general parser: RFC 7644 §3.1 lets clients send
 * `application/scim+json` or `application/json`; the largest accepted body is the bulk
 * `maxPayloadSize` (spec §A). Malformed JSON and oversize bodies fail before any route runs, so they
 * are answered here, as SCIM envelopes (400 invalidSyntax, 413).
 */
export function scimBodyParser() {
  const parse = express.json({
    limit: MAX_BULK_PAYLOAD_BYTES,
    type: ['application/json', 'application/scim+json', 'application/*+json'],
    strict: true,
  });
  return [
    parse,
    (error: Error & { type?: string }, _req: Request, res: Response, next: NextFunction) => {
      const answer = parserError(error);
      if (!answer) return next(error);
      res.status(answer.status).type(SCIM_MEDIA_TYPE).send(JSON.stringify(answer.body));
    },
  ];
}

function parserError(error: Error & { type?: string }): { status: number; body: object } | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return { status: 400, body: scimErrorBody(400, `malformed JSON: ${error.message}`, 'invalidSyntax', 'invalidSyntax') };
    case 'entity.too.large':
      return {
        status: 413,
        body: scimErrorBody(413, `request body exceeds the limit of ${MAX_BULK_PAYLOAD_BYTES} bytes`, undefined, 'payloadTooLarge'),
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, body: scimErrorBody(415, error.message, undefined, 'unsupportedMediaType') };
    default:
      return null;
  }
}
