import { errors } from 'oidc-provider';
import type { EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { FeaturesService } from '../../users/features.service.js';
import type { UserAccess } from '../../users/acting/user-access.service.js';
import { userByIdOrFail } from '../../users/queries/grant-parties.js';
import { invalidGrant } from '../provider/oauth-errors.js';

/** RFC 8693 §4.1 `act`: the acting party, and the party that acted before it (a chain, newest outermost). */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

/** The `act` claim a token carries (its extra claims, as `extraTokenClaims` stored them), if any. */
export function actOf(token: unknown): ActClaim | undefined {
  const act = (token as { extra?: { act?: unknown } } | undefined)?.extra?.act;
  return isActClaim(act) ? act : undefined;
}

export function isActClaim(value: unknown): value is ActClaim {
  return typeof value === 'object' && value !== null && typeof (value as ActClaim).sub === 'string';
}

/**
 * The `act` of a token exchanged from a subject that may itself carry one (SECURITY.md, "Who may act on whom", bounds impersonation
 * to one access token): a new actor goes outermost, a prior one is kept inside it (RFC 8693 §4.1), and
 * without a new actor the subject's chain carries over unchanged, so an exchange never launders it.
 */
export function chainedAct(actorId: string | undefined, inherited: ActClaim | undefined): ActClaim | undefined {
  if (actorId === undefined) return inherited;
  return inherited ? { sub: actorId, act: inherited } : { sub: actorId };
}

function actorsIn(act: ActClaim): string[] {
  return act.act ? [act.sub, ...actorsIn(act.act)] : [act.sub];
}

/**
 * Whether every actor of the chain may still impersonate the subject: asked wherever a token carrying
 * `act` is used (introspection, userinfo, the API, exchange), so an impersonation ends as soon as its
 * actor loses the role that allowed it.
 */
export async function impersonationHolds(access: UserAccess, manager: EntityManager, act: ActClaim, subjectId: string): Promise<boolean> {
  for (const actorId of actorsIn(act)) {
    if ((await access.impersonationRefusal(manager, actorId, subjectId)) !== null) return false;
  }
  return true;
}

export interface ImpersonationDeps {
  features: FeaturesService;
  access: UserAccess;
  uow: UnitOfWork;
  events: EventStore;
}

/** Starting an impersonation: the feature, an actor who may impersonate the subject, and `user.impersonated`. */
export async function authorizeImpersonation(deps: ImpersonationDeps, actorId: string, subjectId: string, clientId: string): Promise<void> {
  if (!(await deps.features.isEnabled('impersonation'))) throw new errors.InvalidRequest('impersonation is not enabled');
  await deps.uow.run(async (manager) => {
    const subject = await userByIdOrFail(manager, subjectId);
    const refusal = await deps.access.impersonationRefusal(manager, actorId, subject.id);
    if (refusal !== null) throw invalidGrant(refusal);
    await deps.events.push(manager, {
      type: 'user.impersonated',
      aggregateType: 'user',
      aggregateId: subject.id,
      resourceOwner: subject.orgId,
      editorUserId: actorId,
      payload: { actorUserId: actorId, clientId },
    });
  });
}

/** A subject token that already carries `act`: every actor of its chain must still be allowed. */
export async function assertInheritedImpersonation(deps: ImpersonationDeps, act: ActClaim, subjectId: string): Promise<void> {
  if (!(await deps.features.isEnabled('impersonation')) || !(await impersonationHolds(deps.access, deps.uow.manager, act, subjectId))) {
    throw invalidGrant('the impersonation this token carries is no longer allowed');
  }
}
