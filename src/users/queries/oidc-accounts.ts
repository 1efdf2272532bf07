import type { DataSource, EntityManager } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';

/** A user as oidc-provider's account: the claim columns, its state and the organization's primary domain. */
export type AccountRow = Record<string, unknown>;

/** The user's claim columns, its state and the organization's domain (for the login name). */
const ACCOUNT_COLUMNS = `u.id, u.org_id, u.state, u.user_name, u.display_name, u.given_name, u.family_name, u.nick_name, u.gender,
  u.preferred_language, u.timezone, u.profile_url, u.changed_at, u.email, u.email_verified, u.phone, u.phone_verified,
  u.scim_attributes, o.primary_domain`;

/** The user with its state and the organization's domain: one statement. */
const ACCOUNT_SQL = `SELECT ${ACCOUNT_COLUMNS} FROM users u LEFT JOIN organizations o ON o.id = u.org_id WHERE u.id = ?`;

/** The account's row, read on every use (userinfo, ID tokens): a plain statement on the hot path. */
export async function accountRow(dataSource: DataSource, userId: string): Promise<AccountRow | undefined> {
  const rows = await statementsOf(dataSource).rows<AccountRow>(ACCOUNT_SQL, [userId]);
  return rows[0];
}

/**
 * The account's columns as joins onto another table's statement, so that a token and its account are
 * read in one statement where the account is used right after the token (userinfo, the refresh grant):
 * `userIdSql` is the SQL expression of the user's id (a constant expression of the caller, never a
 * value). The columns keep the names of `accountRow`'s (`id`, `org_id`, `state`, …, `primary_domain`),
 * so the caller's own columns must not use those names; `id` is null when there is no such user. With
 * `loginMfa`, also the organization's stored `mfa` login policy as `login_mfa` (the refresh grant's check).
 */
export function accountJoin(userIdSql: string, options: { loginMfa?: boolean } = {}): { columns: string; joins: string } {
  // `login_mfa`: the organization's stored multi-factor policy (null: none stored, the default applies).
  return {
    columns: options.loginMfa ? `${ACCOUNT_COLUMNS}, lp.mfa AS login_mfa` : ACCOUNT_COLUMNS,
    joins: `LEFT JOIN users u ON u.id = ${userIdSql}
    LEFT JOIN organizations o ON o.id = u.org_id${options.loginMfa ? '\n    LEFT JOIN login_policies lp ON lp.org_id = u.org_id' : ''}`,
  };
}

/** A token user's state and the parts of its login name, as columns of one row. */
export interface TokenUserRow {
  state: string;
  user_name: string;
  primary_domain: string | null;
}

/** A token's user by id, when it was not read together with the token (introspection). */
export async function tokenUserRow(dataSource: DataSource, userId: string): Promise<TokenUserRow | undefined> {
  const [row] = await statementsOf(dataSource).rows<TokenUserRow>(
    'SELECT u.state, u.user_name, o.primary_domain FROM users u LEFT JOIN organizations o ON o.id = u.org_id WHERE u.id = ?',
    [userId],
  );
  return row;
}

/**
 * The same user columns as joins onto another table's statement, so that a token and its user are read
 * in one statement on the introspection path: `userIdSql` is the SQL expression of the user's id (a
 * constant expression of the caller, never a value); the columns are named `user_state`, `user_name`
 * and `primary_domain`.
 */
export function tokenUserJoin(userIdSql: string): { columns: string; joins: string } {
  return {
    columns: 'u.state AS user_state, u.user_name, o.primary_domain',
    joins: `LEFT JOIN users u ON u.id = ${userIdSql}
    LEFT JOIN organizations o ON o.id = u.org_id`,
  };
}

/** The organization of a user, inside the caller's transaction; undefined when there is no such user. */
export async function organizationOfUser(manager: EntityManager, userId: string): Promise<string | undefined> {
  const users: { org_id: string }[] = await manager.query('SELECT org_id FROM users WHERE id = ?', [userId]);
  return users[0]?.org_id;
}
