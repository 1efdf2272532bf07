import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Role } from './roles.js';

/** What a route requires of its caller; read by the one global guard. */
export type AccessPolicy =
  | { public: true }
  | { public?: false; role: Role; scope: 'instance' }
  | { public?: false; role: Role; scope: 'org'; orgParam: string }
  /** Any valid token, whatever its roles: for routes about the caller itself (`/auth/v1/users/me`). */
  | { public?: false; scope: 'caller' };

export const ACCESS_POLICY = 'portcullis:access-policy';

/**
 * Declares the role a route needs. With `orgParam`, the role is checked on the organization named by
 * that route parameter; otherwise on the instance.
 */
export function Authenticated(options: { role: Role; orgParam?: string }) {
  const policy: AccessPolicy = options.orgParam
    ? { role: options.role, scope: 'org', orgParam: options.orgParam }
    : { role: options.role, scope: 'instance' };
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, policy),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'missing, invalid or expired bearer token' }),
    ApiForbiddenResponse({ description: `the caller lacks ${options.role}` }),
  );
}

/**
 * Declares a route that answers any authenticated caller about itself only (its own id, organization and
 * roles): nothing it returns is about another user or organization, so no role is needed.
 */
export function AnyCaller() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { scope: 'caller' } satisfies AccessPolicy),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'missing, invalid or expired bearer token' }),
  );
}

/** Declares a route open to anyone (health, discovery documents). */
export function Public() {
  return SetMetadata(ACCESS_POLICY, { public: true } satisfies AccessPolicy);
}
