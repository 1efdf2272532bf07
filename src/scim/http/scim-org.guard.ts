import { Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../../common/auth/principal.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { organizationExists } from '../../users/queries/organizations.js';

/**
 * Every SCIM route answers 404 under an organization id that does not exist, so that a client set up
 * with a wrong tenant URL (Entra ID's "test connection") fails instead of listing an empty tenant.
 * Runs after the global AccessGuard: an organization the caller may not reach has already been
 * answered 404 there, with the same body as here, so the two cannot be told apart (SECURITY.md,
 * "Tenant isolation").
 * A caller's own organization, or one it holds roles on, exists (removing an organization removes its users
 * and every membership on it), so only an instance-wide caller (IAM_OWNER) and the token-less discovery
 * routes cost a lookup.
 */
@Injectable()
export class ScimOrgGuard implements CanActivate {
  constructor(private readonly dataSource: DataSource) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ user?: Principal; params: Record<string, string | undefined> }>();
    const orgId = request.params.orgId ?? '';
    const caller = request.user;
    if (caller && (caller.orgId === orgId || caller.orgRoles.has(orgId))) return true;
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    return true;
  }
}
