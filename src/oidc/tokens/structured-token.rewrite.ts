import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { assertionSubject } from '../grants/jwt-profile.grant.js';
import { JWT_BEARER_GRANT } from './grant-types.js';
import { JwtTokenIds } from './jwt-access-tokens.js';

const LIMIT = 56 * 1024;
export const JWT_REFERENCE = Symbol('portcullis.jwt-reference');

export interface JwtReference {
  handle: string;
  jwt: string;
}

type WithReference = IncomingMessage & { [JWT_REFERENCE]?: JwtReference };

/**
 * oidc-provider refuses JWT access tokens at introspection and revocation (they are self-contained
 * for it), but DESIGN §5 makes them introspectable and revocable like opaque ones. The form body is
 * read here and a JWT `token` swapped for a one-request handle; the adapter resolves that handle (and
 * only within this request) to the JWT, whose signature it verifies before using its `jti`.
 */
export async function rewriteStructuredToken(req: IncomingMessage): Promise<void> {
  const form = await readForm(req);
  if (!form) return;
  const token = form.get('token');
  if (token && JwtTokenIds.looksLikeJwt(token)) {
    const handle = `jwtref.${randomBytes(24).toString('base64url')}`;
    (req as WithReference)[JWT_REFERENCE] = { handle, jwt: token };
    form.set('token', handle);
  }
  replayForm(req, form);
}

/**
 * The JWT profile grant needs no client authentication (DESIGN §5: the signed assertion is the
 * credential), but oidc-provider authenticates a client on every token request: the assertion's
 * subject (the machine user, whose client id is its user id) is named as a client without
 * authentication; the grant then verifies the assertion and that its subject is that client.
 */
export async function nameJwtProfileClient(req: IncomingMessage): Promise<void> {
  const form = await readForm(req);
  if (!form) return;
  const unauthenticated = !req.headers.authorization && !form.has('client_id') && !form.has('client_assertion');
  if (form.get('grant_type') === JWT_BEARER_GRANT && unauthenticated) {
    const sub = assertionSubject(form.get('assertion') ?? '');
    if (sub) form.set('client_id', sub);
  }
  replayForm(req, form);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // oidc-provider refuses bodies over its own limit; keep what it needs to say so.
    if (size > LIMIT) break;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Hands oidc-provider an unread body again (it reads with req.iterator and checks Content-Length). */
function replayForm(req: IncomingMessage, form: URLSearchParams): void {
  const body = Buffer.from(form.toString(), 'utf8');
  req.headers['content-length'] = String(body.length);
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* replay() {
      yield body;
    },
  });
}

/** The JWT behind a handle, when the handle belongs to the request being handled. */
export function jwtForHandle(req: IncomingMessage | undefined, id: string): string | undefined {
  const reference = (req as WithReference | undefined)?.[JWT_REFERENCE];
  return reference && reference.handle === id ? reference.jwt : undefined;
}
