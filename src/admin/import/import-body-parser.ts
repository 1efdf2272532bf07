import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { jsonBodyParser } from '../../common/http/body-parsers.js';
import type { PrincipalResolver } from '../../common/auth/principal-resolver.js';
import { isDpopBound } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The import's body parser: its large limit (IMPORT_BODY_LIMIT_BYTES, 200 MB by default) only for a caller
 * whose bearer token already resolves to an IAM_OWNER; everyone else goes on to the general parser and its
 * ordinary limit, and the route's guard then answers 401 or 403 as on every route. Parsing 200 MB before
 * authentication let one anonymous request exhaust the process's memory or block its event loop for
 * seconds (SECURITY.md, "Request bodies").
 *
 * Only the Authorization header is read here (RFC 6750 §2.1); a token elsewhere never unlocks the limit, nor does
 * a DPoP-bound token (its proof is checked, and its jti used up, by the route's guard only).
 */
export function importBodyParser(resolver: PrincipalResolver, limitBytes: number): Middleware {
  return forInstanceOwners(resolver, express.Router().use(...jsonBodyParser(limitBytes)));
}

/** `parse` for a caller whose bearer token resolves to an IAM_OWNER; everyone else goes on to the general parser. */
export function forInstanceOwners(resolver: PrincipalResolver, parse: Middleware): Middleware {
  return (req, res, next) => {
    isInstanceOwner(resolver, req.headers.authorization).then(
      (owner) => (owner ? parse(req, res, next) : next()),
      // An outage while resolving: the general parser and then the guard answer (503 there).
      () => next(),
    );
  };
}

async function isInstanceOwner(resolver: PrincipalResolver, authorization: string | undefined): Promise<boolean> {
  const token = /^Bearer +([^ ]+) *$/i.exec(authorization ?? '')?.[1];
  if (!token) return false;
  const principal = await resolver.resolve(token);
  // A DPoP-bound token is no Bearer token (RFC 9449 §7.2): without its proof it unlocks nothing here either.
  return principal !== null && !isDpopBound(principal) && principal.instanceRoles.has(Role.IamOwner);
}
