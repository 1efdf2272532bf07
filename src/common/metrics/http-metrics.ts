import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpRequests, scimRequests } from './metrics.js';

/**
 * A request as the routers leave it: Express sets `route` (and `baseUrl`) on the request it matched;
 * the OIDC dispatch, which runs before Express, names the provider's endpoint in `routeTemplate`.
 */
export interface RoutedRequest extends IncomingMessage {
  route?: { path?: unknown };
  baseUrl?: string;
  originalUrl?: string;
  routeTemplate?: string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SURFACES: [prefix: string, surface: string][] = [
  ['/admin/', 'admin'],
  ['/management/', 'management'],
  ['/auth/', 'auth'],
  ['/console', 'console'],
  ['/scim/', 'scim'],
  ['/oauth/', 'oidc'],
  ['/oidc/', 'oidc'],
  ['/.well-known/', 'oidc'],
  ['/ui/login', 'login'],
  ['/ui/account', 'login'],
  ['/healthz', 'health'],
  ['/docs', 'docs'],
];

/**
 * Counts every answered request and its duration, labelled by the route's template (never the path:
 * paths hold ids). A request no route matched is `unmatched`, so probing random paths adds no series.
 */
export function httpMetricsMiddleware() {
  return (req: RoutedRequest, res: ServerResponse, next: () => void) => {
    const started = performance.now();
    res.once('close', () => record(req, res, (performance.now() - started) / 1000));
    next();
  };
}

function record(req: RoutedRequest, res: ServerResponse, seconds: number): void {
  const surface = surfaceOf((req.originalUrl ?? req.url ?? '/').split('?')[0]);
  const route = routeTemplateOf(req);
  const status = String(res.statusCode);
  // One key per label set (route templates and surfaces hold no NUL): the labels object is made once per set.
  httpRequests.observe(`${surface}\0${route}\0${status}`, () => ({ surface, route, status }), seconds);
  if (surface === 'scim') {
    scimRequests.inc({ resource: scimResourceOf(route), method: METHODS.has(req.method ?? '') ? req.method! : 'other', status });
  }
}

function surfaceOf(path: string): string {
  return SURFACES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? 'other';
}

function routeTemplateOf(req: RoutedRequest): string {
  if (req.routeTemplate) return req.routeTemplate;
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : 'unmatched';
}

/** `/scim/v2/:orgId/Users/:id` → `Users`; the discovery documents and Bulk by their names. */
function scimResourceOf(route: string): string {
  const match = /^\/scim\/v2\/:orgId\/([^/]+)/.exec(route);
  return match ? match[1] : 'unmatched';
}
