import cluster from 'node:cluster';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DataSource } from 'typeorm';
import { statementsOf } from '../database/statements.js';
import { serveBeforeExpress } from '../http/before-express.js';
import { setErrorHeaders } from '../http/error-headers.js';
import { noteFailure } from '../http/failure-causes.js';
import type { RoutedRequest } from '../metrics/http-metrics.js';

export const HEALTH_PATH = '/healthz';
/** What Express's router matched for the controller this replaced: case-insensitive, an optional trailing slash. */
const HEALTH_PATH_PATTERN = /^\/healthz\/?$/i;
const UNREACHABLE = 'the database is not reachable';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * The readiness probe `GET /healthz` (and HEAD), answered before Express and Nest: a load balancer calls it
 * often, and nothing of their pipeline is needed (BENCHMARKS.md "Per-request overhead"). 200
 * `{status:'ok', worker}` once the database answers `SELECT 1` (migrations ran before listening), else 503
 * in the API's error body with Retry-After, as ApiExceptionFilter answered it. `observe` gives it the
 * request id, the access-log line and the metrics every request has. Other methods go on to Express
 * (its 404), as before. Documented in `health.openapi.ts`.
 */
export function serveHealthBeforeExpress(server: Server, dataSource: DataSource, observe: Middleware): void {
  const statements = statementsOf(dataSource);
  serveBeforeExpress(server, (req, res) => {
    if (!isHealthRequest(req)) return false;
    (req as RoutedRequest).routeTemplate = HEALTH_PATH;
    observe(req, res, () =>
      statements.rows('SELECT 1', []).then(
        () => writeJson(res, 200, { status: 'ok', worker: cluster.worker?.id ?? 0 }),
        () => {
          // The request's log line carries the cause, as for any answered 5xx.
          noteFailure(res, { cause: UNREACHABLE });
          setErrorHeaders(res, 503);
          writeJson(res, 503, { code: 503, message: UNREACHABLE, details: [] });
        },
      ),
    );
    return true;
  });
}

function isHealthRequest(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return HEALTH_PATH_PATTERN.test(path);
}

/** What Express's `res.json` sent (no ETag: the application disables it); node leaves the body out for HEAD. */
function writeJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
