import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { ApiErrorBody } from '../errors/api-exception.filter.js';

/** Media types parsed as JSON: SCIM clients send `application/scim+json` (RFC 7644 §3.1). */
const JSON_TYPES = ['application/json', 'application/scim+json', 'application/*+json'];

/**
 * JSON body parsing with a size limit, and the errors body-parser raises turned into the API's error
 * shape: malformed JSON → 400, over the limit → 413 naming the limit. They happen before any route
 * runs, so the Nest exception filters never see them.
 */
export function jsonBodyParser(limitBytes: number) {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES, strict: true });
  return [
    parse,
    (req: Request, _res: Response, next: NextFunction) => {
      // Express 5 leaves the body undefined when none was sent; validation then sees an empty object.
      if (req.body === undefined && ['POST', 'PUT', 'PATCH'].includes(req.method)) req.body = {};
      next();
    },
    (error: Error & { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
      const body = bodyParserError(error, limitBytes);
      if (!body) return next(error);
      res.status(body.code).json(body);
    },
  ];
}

export function bodyParserError(error: Error & { type?: string }, limitBytes: number): ApiErrorBody | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return { code: 400, message: `malformed JSON: ${error.message}`, details: [] };
    case 'entity.too.large':
      return { code: 413, message: `request body exceeds the limit of ${limitBytes} bytes`, details: [] };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { code: 415, message: error.message, details: [] };
    default:
      return null;
  }
}
