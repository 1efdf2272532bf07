import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { PRINCIPAL_RESOLVER } from './principal-resolver.js';
import type { PrincipalResolver } from './principal-resolver.js';
import type { Principal } from './principal.js';

/**
 * Passport's RFC 6750 bearer strategy, resolving tokens through the domain's PrincipalResolver. Only the
 * Authorization header is read (RFC 6750 §2.1): the strategy would also take `access_token` from the
 * query (§2.3, which leaks tokens into logs and histories) and from a form body (§2.2); neither is
 * offered by this API, so such a token is no token at all (401).
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(@Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver) {
    super();
  }

  override authenticate(req: Request, options?: object): void {
    super.authenticate({ headers: { authorization: req.headers.authorization } } as Request, options);
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.resolver.resolve(token)) ?? false;
  }
}
