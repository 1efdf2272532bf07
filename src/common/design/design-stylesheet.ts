import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The design system's stylesheet (docs/design.md), read once at start-up. The build copies design.css beside this
 * module (scripts/copy-design.mjs). Its URL carries a hash of its content, so a browser may keep it for a year
 * (RFC 8246, `immutable`): a new version is a new URL.
 */
export const DESIGN_CSS = readFileSync(new URL('./design.css', import.meta.url), 'utf8');

/** The hash in the stylesheet's URL: the route answers this one only. */
export const DESIGN_HASH = createHash('sha256').update(DESIGN_CSS).digest('base64url').slice(0, 12);

/** The route (one for every version; a stale hash is 404) and the URL pages link: same origin, as the pages' CSP wants. */
export const DESIGN_STYLESHEET_ROUTE = '/ui/login/assets/design-:hash.css';
export const DESIGN_STYLESHEET_PATH = `/ui/login/assets/design-${DESIGN_HASH}.css`;

export const DESIGN_STYLESHEET_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/css; charset=utf-8',
  'Cache-Control': 'public, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
};
