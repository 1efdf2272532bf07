import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { assertionSubject } from '../grants/jwt-profile.grant.js';
import { JWT_BEARER_GRANT } from './grant-types.js';
import { JwtTokenIds } from './jwt-access-tokens.js';
import { readForm, replayBody } from '../provider/extensions/request-body-replay.js';

export const JWT_REFERENCE = Symbol('portcullis.jwt-reference');

interface JwtReference {
  handle: string;
  jwt: string;
}

type WithReference = IncomingMessage & { [JWT_REFERENCE]?: JwtReference };

/**
 * oidc-provider refuses JWT access tokens at introspection and revocation (they are self-contained
 * for it), but docs/product-rules.md, "OpenID Connect and OAuth" makes them introspectable and revocable like opaque ones. The form body is
 * read here and a JWT `token` swapped for a one-request handle; the adapter resolves that handle (and
 * only within this request) to the JWT, whose signature it verifies before using its `jti`.
 */
export async function rewriteStructuredToken(req: IncomingMessage): Promise<void> {
  const body = await readForm(req);
  if (!body) return;
  // A JWT has two dots (sent as is or as %2E); a body without any, as with an opaque token, is passed
  // on without being parsed here.
  if (!mayHoldJwt(body)) return replayBody(req, body);
  replayBody(
    req,
    edited(body, (form) => {
      const token = form.get('token');
      if (!token || !JwtTokenIds.looksLikeJwt(token)) return false;
      const handle = `jwtref.${randomBytes(24).toString('base64url')}`;
      (req as WithReference)[JWT_REFERENCE] = { handle, jwt: token };
      form.set('token', handle);
      return true;
    }),
  );
}

/**
 * The JWT profile grant needs no client authentication (docs/product-rules.md, "OpenID Connect and OAuth": the signed assertion is the
 * credential), but oidc-provider authenticates a client on every token request: the assertion's
 * subject (the machine user, whose client id is its user id) is named as a client without
 * authentication; the grant then verifies the assertion and that its subject is that client.
 */
export async function nameJwtProfileClient(req: IncomingMessage): Promise<void> {
  const body = await readForm(req);
  if (!body) return;
  replayBody(
    req,
    edited(body, (form) => {
      const unauthenticated = !req.headers.authorization && !form.has('client_id') && !form.has('client_assertion');
      const sub = form.get('grant_type') === JWT_BEARER_GRANT && unauthenticated ? assertionSubject(form.get('assertion') ?? '') : undefined;
      if (!sub) return false;
      form.set('client_id', sub);
      return true;
    }),
  );
}

/** The form body after `edit`; serialized again only when `edit` changed something. */
function edited(body: Buffer, edit: (form: URLSearchParams) => boolean): Buffer {
  const form = new URLSearchParams(body.toString('utf8'));
  return edit(form) ? Buffer.from(form.toString(), 'utf8') : body;
}

function mayHoldJwt(body: Buffer): boolean {
  return body.includes('.') || body.includes('%2E') || body.includes('%2e');
}

/** The JWT behind a handle, when the handle belongs to the request being handled. */
export function jwtForHandle(req: IncomingMessage | undefined, id: string): string | undefined {
  const reference = (req as WithReference | undefined)?.[JWT_REFERENCE];
  return reference && reference.handle === id ? reference.jwt : undefined;
}
