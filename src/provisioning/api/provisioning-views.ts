import type { ObjectRow } from '../provisioning.queries.js';
import { GROUP_PLAN_ACTIONS } from '../reconcile/group-plan.js';
import { PLAN_ACTIONS } from '../reconcile/reconcile-plan.js';
import type { TargetPlan } from '../reconcile/reconcile.service.js';
import { PLAN_ITEMS_SHOWN } from './provisioning.dto.js';
import type { ProvisionedObjectDto, ReconcilePlanDto } from './provisioning.dto.js';

/** An object row as the API shows it (docs/provisioning.md, "Targets"). */
export function objectView(row: ObjectRow): ProvisionedObjectDto {
  return {
    kind: row.kind,
    localId: row.localId,
    remoteId: row.remoteId,
    status: row.status,
    attempts: row.attempts,
    ...(row.lastStatus !== null ? { lastStatus: row.lastStatus } : {}),
    ...(row.lastError !== null ? { lastError: row.lastError } : {}),
    pushedAt: row.pushedAt === null ? null : new Date(row.pushedAt).toISOString(),
  };
}

/** A plan as a dry run answers it: each action's count, and its first PLAN_ITEMS_SHOWN users (and groups). */
export function planView(plan: TargetPlan): ReconcilePlanDto {
  return {
    ...Object.fromEntries(PLAN_ACTIONS.map((action) => [action, { count: plan[action].length, items: plan[action].slice(0, PLAN_ITEMS_SHOWN) }])),
    groups: Object.fromEntries(
      GROUP_PLAN_ACTIONS.map((action) => [action, { count: plan.groups[action].length, items: plan.groups[action].slice(0, PLAN_ITEMS_SHOWN) }]),
    ),
  } as unknown as ReconcilePlanDto;
}
