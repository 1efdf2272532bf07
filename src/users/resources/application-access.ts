import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { Role } from '../../common/auth/roles.js';
import { holdsOn, isIamOwner, noRoles } from '../acting/acting-rule.js';
import type { UserAccess } from '../acting/user-access.service.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import type { ClientAuthMethod } from '../entities/application.entity.js';

/** The application of that project and organization; 404 for one elsewhere (tenant isolation). */
export async function applicationIn(manager: EntityManager, orgId: string, projectId: string, appId: string): Promise<ApplicationEntity> {
  const app = await manager.findOneBy(ApplicationEntity, { id: appId, projectId, orgId });
  if (!app) throw DomainError.notFound('application');
  return app;
}

/**
 * Applications get no more than their owners (SECURITY.md): a first-party application (`apiAccess`) signs
 * in users of every organization and puts the Portcullis API in their tokens, so only an IAM_OWNER may make
 * one, or change, re-key or remove one — an ORG_OWNER of its organization could otherwise point its
 * redirect URIs at itself and receive an IAM_OWNER's token.
 */
export async function assertMayManage(manager: EntityManager, access: UserAccess, editorUserId: string | null, apiAccess: boolean): Promise<void> {
  if (!apiAccess || editorUserId === null) return;
  const editor = (await access.rolesOf(manager, [editorUserId])).get(editorUserId) ?? noRoles();
  if (!isIamOwner(editor)) throw new DomainError(ErrorCode.PermissionDenied, 'only an IAM_OWNER may register or change an application with apiAccess');
}

/**
 * Only an ORG_OWNER of the application's organization (or an IAM_OWNER) makes an application a Shared Signals
 * receiver or stops it being one (docs/signals.md, "Receivers"): its streams tell about every person the application
 * may enter — their sign-outs, credential and address changes — which is the organization's to give away, not the
 * application's manager's. The routes ask for ORG_OWNER already; this holds for any caller the service is given.
 */
export async function assertMaySetSsfReceiver(manager: EntityManager, access: UserAccess, editorUserId: string | null, orgId: string): Promise<void> {
  if (editorUserId === null) return;
  const editor = (await access.rolesOf(manager, [editorUserId])).get(editorUserId) ?? noRoles();
  if (!holdsOn(editor, orgId, Role.OrgOwner)) {
    throw new DomainError(ErrorCode.PermissionDenied, "only an ORG_OWNER of the application's organization may make it a Shared Signals receiver");
  }
}

/** Whether the method authenticates the client with a shared secret (which the application then has). */
export function usesSecret(method: ClientAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}
