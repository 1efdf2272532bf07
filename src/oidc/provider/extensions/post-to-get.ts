import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeOAuthError } from '../oauth-errors.js';
import { readBoundedBody } from './request-body-replay.js';

/** Authorization and end-session requests are small; anything larger is not a browser form. */
const MAX_FORM_BYTES = 64 * 1024;

/**
 * OIDC Core §3.1.2.1 and RP-Initiated Logout §2 require POST at the authorization and end-session
 * endpoints. oidc-provider serves POST there only with `SameSite=None` cookies, because a cross-site
 * POST does not carry `SameSite=Lax` ones and the user's session would be invisible. docs/product-rules.md, "OpenID Connect and OAuth" fixes
 * Lax, so a form POST is answered with a 303 to the same endpoint carrying the parameters as a query:
 * the browser follows it as a top-level GET navigation, which does carry Lax cookies, and the
 * provider handles it exactly like a GET request.
 */
export function redirectPostToGet(req: IncomingMessage, res: ServerResponse, path: string): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return void writeOAuthError(res, 415, 'invalid_request', 'the request body must be application/x-www-form-urlencoded');
  }
  readBoundedBody(req, MAX_FORM_BYTES).then(
    ({ bytes, overLimit }) => {
      if (overLimit) {
        writeOAuthError(res, 413, 'invalid_request', 'the request body is too large');
        return void req.destroy();
      }
      const params = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
      // Duplicates of a query parameter stay duplicates: the provider refuses them with invalid_request.
      for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) params.append(name, value);
      res.writeHead(303, { location: `${path}?${params.toString()}`, 'cache-control': 'no-store' }).end();
    },
    () => writeOAuthError(res, 400, 'invalid_request', 'the request body could not be read'),
  );
}
