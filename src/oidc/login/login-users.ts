import type { DataSource } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { flag } from '../adapter/sql.js';

/** What the login UI needs of a user: the password step, the state check and the login name. */
export type LoginUser = Pick<UserEntity, 'id' | 'orgId' | 'type' | 'state' | 'userName' | 'passwordHash' | 'passwordChangeRequired' | 'failedPasswordChecks' | 'version'> & {
  /** `<userName>@<org primary domain>`, as shown and remembered by the login UI. */
  loginName: string;
};

const COLUMNS = `u.id, u.org_id, u.type, u.state, u.user_name, u.password_hash, u.password_change_required, u.failed_password_checks, u.version, o.primary_domain`;

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

/**
 * Login names: `<userName>@<org primary domain>`; the bare userName names the `default` organization's
 * user of that name, else the only user of that name in the instance. User names may themselves contain
 * `@`, so the last `@` separates the domain only when an organization has that primary domain.
 * One plain parameterised statement per look-up (see common/database/statements.ts for why): this
 * runs on every sign-in, where the repository's per-statement cost exceeded SQLite's own work.
 */
export class LoginUsers {
  constructor(private readonly dataSource: DataSource) {}

  async find(loginName: string): Promise<LoginUser | null> {
    const name = loginName.trim().toLowerCase();
    if (!name) return null;
    const at = name.lastIndexOf('@');
    const [sql, parameters] = at > 0 ? [BY_DOMAIN_OR_NAME_SQL, [name.slice(0, at), name.slice(at + 1), name]] : [BY_NAME_SQL, [name]];
    const rows = await statementsOf(this.dataSource).rows<Record<string, unknown>>(sql, parameters);
    // An organization with that domain exists: the name is meant for it, whether or not it has that user.
    const inDomain = rows.find((row) => row.via === 'domain');
    if (inDomain) return inDomain.id == null ? null : loginUser(inDomain);
    // A bare name: the default organization's user of that name, else the only one in the instance, so
    // no registration elsewhere can make an existing bare login ambiguous (SECURITY.md).
    const byName = rows.filter((row) => row.via === 'name');
    if (byName[0] && Number(byName[0].in_default) === 1) return loginUser(byName[0]);
    return byName.length === 1 ? loginUser(byName[0]) : null;
  }
}

function loginUser(row: Record<string, unknown>): LoginUser {
  const userName = String(row.user_name);
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    type: row.type as LoginUser['type'],
    state: row.state as LoginUser['state'],
    userName,
    passwordHash: row.password_hash == null ? null : String(row.password_hash),
    passwordChangeRequired: flag(row.password_change_required),
    failedPasswordChecks: Number(row.failed_password_checks),
    version: Number(row.version),
    loginName: `${userName}@${row.primary_domain == null ? '' : String(row.primary_domain)}`,
  };
}
