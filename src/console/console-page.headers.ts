/**
 * The console's Content-Security-Policy (docs/console.md, "CSP"): scripts, styles and API calls from this
 * origin only, no inline script or style (the bundle sets none), never framed. Like the login UI's
 * (src/login/login-page.headers.ts) it is a fixed header set on every HTML answer, with `form-action 'self'`
 * (its forms never post across origins: they are handled in the page) and `connect-src 'self'` for the §4
 * API and the OIDC endpoints, which share the origin.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * index.html: revalidated on every load (`no-cache`) so a new build's asset names are picked up at once;
 * the hashed assets it names are cached for a year. No referrer: the callback URL carries the code.
 */
export const CONSOLE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': CONSOLE_CSP,
};

/** Hashed file names change with their content, so a cached copy is never stale (RFC 8246). */
export const CONSOLE_ASSET_CACHE = 'public, max-age=31536000, immutable';
