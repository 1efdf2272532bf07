import type { DataSource } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';

/**
 * A row of the login-name look-up: `via` says which half of the statement found it (`domain`: the
 * organization of that primary domain, with `id` null when it has no such user; `name`: a user of that
 * bare name), `in_default` whether it is the `default` organization's.
 */
export type LoginUserRow = Record<string, unknown>;

const COLUMNS = `u.id, u.org_id, u.type, u.state, u.user_name, u.password_hash, u.password_change_required, u.mfa_enrolment_required, u.failed_password_checks, u.failures_locked_at,
  COALESCE(u.password_changed_at, u.created_at) AS password_set_at, u.version, u.email, u.email_verified, u.preferred_language, o.primary_domain`;

/**
 * Users of that bare name anywhere in the instance, the `default` organization's first; two are enough
 * to know whether it is ambiguous.
 */
const BY_NAME_SQL = `SELECT 'name' AS via, ${COLUMNS}, CASE WHEN o.name = 'default' THEN 1 ELSE 0 END AS in_default
  FROM users u LEFT JOIN organizations o ON o.id = u.org_id
  WHERE u.user_name_lower = ? ORDER BY in_default DESC LIMIT 2`;

/**
 * For `x@y`: the organization with primary domain y and its user x if there is one, and the users
 * named `x@y` in case no organization has that domain. Both in one statement, so a sign-in costs the
 * same whether or not the domain or the user exists.
 */
const BY_DOMAIN_OR_NAME_SQL = `SELECT 'domain' AS via, ${COLUMNS}, 0 AS in_default
  FROM organizations o LEFT JOIN users u ON u.org_id = o.id AND u.user_name_lower = ?
  WHERE o.primary_domain = ?
  UNION ALL
  SELECT * FROM (${BY_NAME_SQL}) by_name`;

/** The users of a bare, lower-cased name (`via` = `name`). One plain statement: it runs on every sign-in. */
export function loginUsersByName(dataSource: DataSource, nameLower: string): Promise<LoginUserRow[]> {
  return statementsOf(dataSource).rows<LoginUserRow>(BY_NAME_SQL, [nameLower]);
}

/**
 * For a lower-cased `userName@domain`: the organization of that domain with its user of that name
 * (`via` = `domain`), and the users whose whole name is `nameLower` (`via` = `name`).
 */
export function loginUsersByDomainOrName(dataSource: DataSource, userNameLower: string, domain: string, nameLower: string): Promise<LoginUserRow[]> {
  return statementsOf(dataSource).rows<LoginUserRow>(BY_DOMAIN_OR_NAME_SQL, [userNameLower, domain, nameLower]);
}

const BY_ID_SQL = `SELECT 'id' AS via, ${COLUMNS}, 0 AS in_default FROM users u LEFT JOIN organizations o ON o.id = u.org_id WHERE u.id = ?`;

/** The user of that id, as the login-name look-ups answer it (a passkey or a session names the user). */
export function loginUserById(dataSource: DataSource, userId: string): Promise<LoginUserRow[]> {
  return statementsOf(dataSource).rows<LoginUserRow>(BY_ID_SQL, [userId]);
}
