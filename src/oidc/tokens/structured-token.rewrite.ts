import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { JwtTokenIds } from './jwt-access-tokens.js';
import type { BodyRewrite } from '../provider/extensions/request-body-replay.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';

export const JWT_REFERENCE = Symbol('portcullis.jwt-reference');

interface JwtReference {
  handle: string;
  jwt: string;
}

type WithReference = IncomingMessage & { [JWT_REFERENCE]?: JwtReference };

/**
 * oidc-provider refuses JWT access tokens at introspection and revocation (they are self-contained
 * for it), but docs/product-rules.md, "OpenID Connect and OAuth" makes them introspectable and revocable like opaque ones. A JWT
 * `token` is swapped for a one-request handle; the adapter resolves that handle (and only within this
 * request) to the JWT, whose signature it verifies before using its `jti`.
 */
export const swapJwtForHandle: BodyRewrite = {
  wants: (req, path) => req.method === 'POST' && (path === OIDC_ROUTES.introspection || path === OIDC_ROUTES.revocation),
  // A JWT has two dots (sent as is or as %2E); a body without any, as with an opaque token, is not parsed.
  mayEdit: (body) => body.includes('.') || body.includes('%2E') || body.includes('%2e'),
  edit: (form, req) => {
    const token = form.get('token');
    if (!token || !JwtTokenIds.looksLikeJwt(token)) return false;
    const handle = `jwtref.${randomBytes(24).toString('base64url')}`;
    (req as WithReference)[JWT_REFERENCE] = { handle, jwt: token };
    form.set('token', handle);
    return true;
  },
};

/** The JWT behind a handle, when the handle belongs to the request being handled. */
export function jwtForHandle(req: IncomingMessage | undefined, id: string): string | undefined {
  const reference = (req as WithReference | undefined)?.[JWT_REFERENCE];
  return reference && reference.handle === id ? reference.jwt : undefined;
}
