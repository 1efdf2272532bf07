import { createParamDecorator } from '@nestjs/common';
import type { ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal.js';

/** The authenticated caller, as resolved by the global guard. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const user = ctx.switchToHttp().getRequest<{ user?: Principal }>().user;
  if (!user) throw new Error('@Caller() used on a route without authentication');
  return user;
});
