import { Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { DatabaseAvailability } from '../database/database-availability.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../database/database-unavailable.js';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { ACCESS_POLICY } from './authenticated.decorator.js';
import type { AccessPolicy } from './authenticated.decorator.js';
import { bearerToken } from './bearer-token.js';
import type { BearerRequest } from './bearer-token.js';
import { PRINCIPAL_RESOLVER } from './principal-resolver.js';
import type { PrincipalResolver } from './principal-resolver.js';
import { canSeeOrg, rolesOnOrg } from './principal.js';
import type { Principal } from './principal.js';

type GuardedRequest = BearerRequest & { user?: Principal; params: Record<string, string> };

/**
 * The one global guard: every route declares a policy (`@Authenticated` or `@Public`), and a route
 * without one is refused, so a forgotten decorator fails closed. 401 without a valid token, 404 when
 * the organization is outside the caller's reach, 403 when the caller lacks the role (docs/product-rules.md, "API").
 *
 * The token is read as passport-http-bearer read it (bearer-token.ts) and resolved by the users
 * domain's PrincipalResolver on every request, so revocation stays immediate; passport's per-request
 * machinery and the two metadata look-ups per request are left out (BENCHMARKS.md, "Per-request overhead").
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Each route's policy, read once: the decorators' metadata does not change after start-up. */
  private readonly policies = new WeakMap<object, WeakMap<object, AccessPolicy | null>>();
  private resolver: PrincipalResolver | undefined;

  constructor(
    private readonly reflector: Reflector,
    private readonly availability: DatabaseAvailability,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.policyOf(context);
    if (!policy) throw new DomainError(ErrorCode.PermissionDenied, 'this route declares no access policy');
    if (policy.public) return true;

    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const principal = await this.authenticate(request);
    request.user = principal;
    authorize(principal, policy, request.params);
    return true;
  }

  private async authenticate(request: GuardedRequest): Promise<Principal> {
    const token = bearerToken(request);
    let principal: Principal | null = null;
    if (typeof token === 'string') {
      try {
        principal = await this.principals().resolve(token);
      } catch (error) {
        // An outage while resolving the token is not the caller's fault: 503, not 401.
        if (isDatabaseUnavailable(error)) {
          this.availability.reportUnavailable(error);
          throw databaseUnavailable();
        }
      }
    }
    if (!principal) throw new DomainError(ErrorCode.Unauthenticated, 'a valid bearer token is required');
    return principal;
  }

  private policyOf(context: ExecutionContext): AccessPolicy | null {
    const [controller, handler] = [context.getClass(), context.getHandler()];
    let byHandler = this.policies.get(controller);
    if (!byHandler) this.policies.set(controller, (byHandler = new WeakMap()));
    let policy = byHandler.get(handler);
    if (policy === undefined) {
      policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(ACCESS_POLICY, [handler, controller]) ?? null;
      byHandler.set(handler, policy);
    }
    return policy;
  }

  /** The users domain provides the resolver; `common` cannot import that module, so it is looked up once. */
  private principals(): PrincipalResolver {
    return (this.resolver ??= this.moduleRef.get<PrincipalResolver>(PRINCIPAL_RESOLVER, { strict: false }));
  }
}

function authorize(principal: Principal, policy: Exclude<AccessPolicy, { public: true }>, params: Record<string, string>): void {
  if (policy.scope === 'instance') {
    if (!principal.instanceRoles.has(policy.role)) throw forbidden(policy.role);
    return;
  }
  const orgId = params[policy.orgParam];
  if (!orgId || !canSeeOrg(principal, orgId)) throw DomainError.notFound('organization');
  if (!rolesOnOrg(principal, orgId).has(policy.role)) throw forbidden(policy.role);
}

function forbidden(role: string): DomainError {
  return new DomainError(ErrorCode.PermissionDenied, `this request needs the role ${role}`);
}
