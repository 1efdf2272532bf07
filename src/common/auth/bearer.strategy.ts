import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { PRINCIPAL_RESOLVER } from './principal-resolver.js';
import type { PrincipalResolver } from './principal-resolver.js';
import type { Principal } from './principal.js';

/** Passport's RFC 6750 bearer strategy, resolving tokens through the domain's PrincipalResolver. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(@Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.resolver.resolve(token)) ?? false;
  }
}
