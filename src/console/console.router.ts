import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, Response } from 'express';
import type { RoutedRequest } from '../common/metrics/http-metrics.js';
import { CONSOLE_ASSET_CACHE, CONSOLE_PAGE_HEADERS } from './console-page.headers.js';
import { sendStatic, staticBody } from '../common/http/static-body.js';
import type { StaticBody } from '../common/http/static-body.js';

/** Where scripts/build-console.mjs writes the bundle: dist/console, beside dist/src (this file is dist/src/console/). */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));
const ASSETS_PREFIX = '/console/assets/';
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json' };
/** Only names the build writes: `<name>-<hash>.<ext>`; nothing else reaches the file system. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|map)$/;

/**
 * Serves the operator console (docs/console.md): `/` and `/console` redirect to `/console/`; the hashed
 * assets under `/console/assets/`; every other `/console/…` path gets index.html, so the client-side
 * routes (history API) survive a reload or a shared link. Files are read once, and compressed once for the browsers that
 * take gzip (src/common/http/static-body.ts): a new build means a restart.
 */
export function consoleRouter(dir = CONSOLE_DIR) {
  const cache = new Map<string, StaticBody | null>();
  const read = (name: string): StaticBody | null => {
    if (!cache.has(name)) {
      const path = join(dir, name);
      cache.set(name, existsSync(path) ? staticBody(readFileSync(path)) : null);
    }
    return cache.get(name)!;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    const route = (template: string) => ((req as RoutedRequest).routeTemplate = template);
    if (path === '/' || path === '/console') {
      route(path);
      return void res.redirect(302, '/console/');
    }
    if (!path.startsWith('/console/')) return next();
    if (path.startsWith(ASSETS_PREFIX)) {
      route(`${ASSETS_PREFIX}:file`);
      const name = path.slice(ASSETS_PREFIX.length);
      const body = ASSET_NAME.test(name) ? read(`assets/${name}`) : null;
      if (!body) return void res.status(404).type('text/plain').send('not found');
      res.set({ 'Content-Type': TYPES[extname(name)], 'Cache-Control': CONSOLE_ASSET_CACHE, 'X-Content-Type-Options': 'nosniff' });
      return sendStatic(req, res, body);
    }
    route('/console/*');
    const index = read('index.html');
    if (!index) return void res.status(503).type('text/plain').send('the console is not built: run `npm run build`');
    res.set({ ...CONSOLE_PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
    sendStatic(req, res, index);
  };
}
