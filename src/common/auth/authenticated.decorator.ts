import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiForbiddenResponse, ApiNotFoundResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ACCESS_EXTENSION } from '../http/openapi/access-extension.js';
import type { AccessExtension, CallerAccessExtension } from '../http/openapi/access-extension.js';
import { ApiErrorDto } from '../http/openapi/api-error.dto.js';
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
 *
 * For the OpenAPI document it also declares the bearer token, the guard's answers (401, 403 and, on an
 * organization's routes, 404) with the error body, and the role, which `completeOpenApiDocument` writes
 * into the operation's description. A route's own `@ApiNotFoundResponse` adds its description to the
 * 404 here (@nestjs/swagger joins the descriptions of one status), so it names only the route's own case.
 */
export function Authenticated(options: { role: Role; orgParam?: string }) {
  const policy: AccessPolicy = options.orgParam ? { role: options.role, scope: 'org', orgParam: options.orgParam } : { role: options.role, scope: 'instance' };
  const access: AccessExtension = options.orgParam ? { role: options.role, organizationParameter: options.orgParam } : { role: options.role };
  const where = options.orgParam ? ` on the organization {${options.orgParam}}` : ' on the instance';
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, policy),
    ApiBearerAuth(),
    ApiExtension(ACCESS_EXTENSION, access),
    ApiUnauthorizedResponse({ description: 'missing, invalid or expired bearer token', type: ApiErrorDto }),
    ApiForbiddenResponse({
      description: `the caller lacks ${options.role}${where} (or, acting on a user, a role that user holds: SECURITY.md, "Who may act on whom")`,
      type: ApiErrorDto,
    }),
    // The guard answers 404, not 403, for an organization outside the caller's reach (SECURITY.md, "Tenant isolation").
    ...(options.orgParam ? [ApiNotFoundResponse({ description: `no organization {${options.orgParam}} within the caller's reach`, type: ApiErrorDto })] : []),
  );
}

/**
 * Declares a route that answers any authenticated caller about itself only (its own id, organization and
 * roles): nothing it returns is about another user or organization, so no role is needed and there is no 403.
 */
export function AnyCaller() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { scope: 'caller' } satisfies AccessPolicy),
    ApiBearerAuth(),
    ApiExtension(ACCESS_EXTENSION, { caller: true } satisfies CallerAccessExtension),
    ApiUnauthorizedResponse({ description: 'missing, invalid or expired bearer token', type: ApiErrorDto }),
  );
}

/** Declares a route open to anyone (health, discovery documents); the OpenAPI document says `security: []`. */
export function Public() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { public: true } satisfies AccessPolicy),
    ApiExtension(ACCESS_EXTENSION, { public: true } satisfies AccessExtension),
  );
}
