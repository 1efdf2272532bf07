import type { DataSource } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';
import type { DynamicRegistrationMode } from '../entities/login-policy.entity.js';

/*
 * The organizations' dynamic registration setting (the login policy's `dynamic_registration`; docs/agents.md,
 * "Dynamic registration"), for the agents feature, whose statements name no table of the users domain
 * (docs/architecture.md, "Data").
 */

/** Whether any organization accepts registrations at all, and whether any accepts them without a token. */
export async function registrationModesInUse(dataSource: DataSource): Promise<{ any: boolean; open: boolean }> {
  const rows = await statementsOf(dataSource).rows<{ mode: string }>(
    `SELECT DISTINCT dynamic_registration AS mode FROM login_policies WHERE dynamic_registration <> 'off'`,
    [],
  );
  return { any: rows.length > 0, open: rows.some((r) => r.mode === 'open') };
}

/** An organization's setting (`off` without a stored policy or organization). */
export async function organizationRegistrationMode(dataSource: DataSource, orgId: string): Promise<DynamicRegistrationMode> {
  const rows = await statementsOf(dataSource).rows<{ mode: DynamicRegistrationMode }>(
    'SELECT dynamic_registration AS mode FROM login_policies WHERE org_id = ?',
    [orgId],
  );
  return rows[0]?.mode ?? 'off';
}

/**
 * The setting of the organization `orgIdSql` names, as a scalar expression for another module's statement (NULL
 * without a stored policy). `orgIdSql` is the caller's column expression (a constant of the caller, never a value).
 */
export function registrationModeOf(orgIdSql: string): string {
  return `(SELECT dynamic_registration FROM login_policies WHERE org_id = ${orgIdSql})`;
}
