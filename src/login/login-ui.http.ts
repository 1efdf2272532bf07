import type { Response } from 'express';
import { LOGIN_PAGE_HEADERS } from './login-page.headers.js';

/** A login form posted without this interaction's CSRF value (answered 403 before anything happens). */
export class CsrfError extends Error {}

/** Rendered like oidc-provider's own errors (see LoginInteractions.fail). */
export class InteractionMismatchError extends Error {
  readonly status = 400;
  readonly error = 'invalid_request';
  readonly error_description = 'this sign-in page belongs to another sign-in; start again from the application';
}

const PAGE_HEADERS = Object.entries(LOGIN_PAGE_HEADERS);

/** The login pages' security headers, by Node's own setHeader: Express's `set` re-checks every value on every request. */
export function securityHeaders(res: Response): void {
  for (const [name, value] of PAGE_HEADERS) res.setHeader(name, value);
}
