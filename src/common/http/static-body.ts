import type { Request, Response } from 'express';
import { gzipSync } from 'node:zlib';

/**
 * A file the service sends as it is (a stylesheet, the console's bundle), kept raw and gzip-compressed from its first
 * use: the console's script is a quarter of its size compressed, and no proxy stands in front of a first start.
 */
export interface StaticBody {
  raw: Buffer;
  gzip: Buffer;
}

export function staticBody(content: Buffer | string): StaticBody {
  const raw = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  return { raw, gzip: gzipSync(raw, { level: 9 }) };
}

/**
 * Sends the compressed form to a client that accepts gzip (RFC 9110 §12.5.3) and the raw one otherwise; a cache
 * keeps the two apart by `Vary` (RFC 9110 §12.5.5). The caller sets the type and caching headers first.
 */
export function sendStatic(req: Request, res: Response, body: StaticBody): void {
  res.setHeader('Vary', 'Accept-Encoding');
  if (req.acceptsEncodings('gzip') === 'gzip') {
    res.setHeader('Content-Encoding', 'gzip');
    res.end(body.gzip);
  } else {
    res.end(body.raw);
  }
}
