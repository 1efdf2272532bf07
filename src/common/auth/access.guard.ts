import { Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DatabaseAvailability } from '../database/database-availability.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../database/database-unavailable.js';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { ACCESS_POLICY } from './authenticated.decorator.js';
import { DpopChallenge } from './dpop-proof.js';
import type { AccessPolicy } from './authenticated.decorator.js';
import { canSeeOrg, rolesOnOrg } from './principal.js';
import type { Principal } from './principal.js';

type GuardedRequest = { user?: Principal; params: Record<string, string> };

const BearerAuthGuard = AuthGuard('bearer');

/**
 * The one global guard: every route declares a policy (`@Authenticated` or `@Public`), and a route
 * without one is refused, so a forgotten decorator fails closed. 401 without a valid token, 404 when
 * the organization is outside the caller's reach, 403 when the caller lacks the role (docs/product-rules.md, "API").
 *
 * The token is read by passport's RFC 6750 bearer strategy (bearer.strategy.ts) and resolved by the users
 * domain's PrincipalResolver on every request, so revocation stays immediate; each route's policy is read
 * once (BENCHMARKS.md, "Per-request overhead").
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Each route's policy, read once: the decorators' metadata does not change after start-up. */
  private readonly policies = new WeakMap<object, WeakMap<object, AccessPolicy | null>>();
  private readonly bearer = new BearerAuthGuard();

  constructor(
    private readonly reflector: Reflector,
    private readonly availability: DatabaseAvailability,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.policyOf(context);
    if (!policy) throw new DomainError(ErrorCode.PermissionDenied, 'this route declares no access policy');
    if (policy.public) return true;

    try {
      await this.bearer.canActivate(context);
    } catch (error) {
      // An outage while resolving the token is not the caller's fault: 503, not 401.
      if (isDatabaseUnavailable(error)) {
        this.availability.reportUnavailable(error);
        throw databaseUnavailable();
      }
      // A DPoP refusal keeps its challenge (RFC 9449 §7.1): invalid_dpop_proof, use_dpop_nonce, invalid_token.
      if (error instanceof DpopChallenge) throw error;
      throw new DomainError(ErrorCode.Unauthenticated, 'a valid bearer token is required');
    }
    const request = context.switchToHttp().getRequest<Required<GuardedRequest>>();
    authorize(request.user, policy, request.params);
    return true;
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
}

function authorize(principal: Principal, policy: Exclude<AccessPolicy, { public: true }>, params: Record<string, string>): void {
  if (policy.scope === 'caller') return;
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
