import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UserEntity } from '../users/entities/user.entity.js';
import { loginUserById, loginUsersByDomainOrName, loginUsersByName } from '../users/queries/login-users.js';
import { flag } from '../common/database/column-values.js';
import { PasswordChecks } from '../users/password-checks.service.js';
import { typedLoginName } from '../users/rules/user-name.js';

/** What the login UI needs of a user: the password step, the state check and the login name. */
export type LoginUser = Pick<
  UserEntity,
  | 'id'
  | 'orgId'
  | 'type'
  | 'state'
  | 'userName'
  | 'passwordHash'
  | 'passwordChangeRequired'
  | 'mfaEnrolmentRequired'
  | 'failedPasswordChecks'
  | 'failuresLockedAt'
  | 'version'
  | 'email'
  | 'emailVerified'
  | 'preferredLanguage'
> & {
  /** `<userName>@<org primary domain>`, as shown and remembered by the login UI. */
  loginName: string;
  /** When the current password was set (the user's creation when it never changed). */
  passwordSetAt: Date;
};

/**
 * Login names: `<userName>@<org primary domain>`; the bare userName names the `default` organization's
 * user of that name, else the only user of that name in the instance. User names may themselves contain
 * `@`, so the last `@` separates the domain only when an organization has that primary domain.
 * One plain parameterised statement per look-up (src/users/queries/login-users.ts): this runs on every
 * sign-in, where the repository's per-statement cost exceeded SQLite's own work.
 */
@Injectable()
export class LoginUsers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly checks: PasswordChecks,
  ) {}

  async find(loginName: string): Promise<LoginUser | null> {
    return this.lockEnded(await this.lookUp(loginName));
  }

  /** The user a passkey or a session names. */
  async findById(userId: string): Promise<LoginUser | null> {
    const [row] = await loginUserById(this.dataSource, userId);
    return this.lockEnded(row ? loginUser(row) : null);
  }

  /**
   * A lock by failed checks whose lock time is over ends as a sign-in finds the user (docs/operations.md,
   * "Settings"), whichever step looks the user up: password, passkey, second factor, federation.
   */
  private async lockEnded(user: LoginUser | null): Promise<LoginUser | null> {
    if (!user || !(await this.checks.endExpiredLock(user))) return user;
    return { ...user, state: 'active', failedPasswordChecks: 0, failuresLockedAt: null, version: user.version + 1 };
  }

  private async lookUp(loginName: string): Promise<LoginUser | null> {
    // White space or invisible characters around a typed name are dropped: no user name has them (users/rules/user-name.ts).
    const name = typedLoginName(loginName).toLowerCase();
    if (!name) return null;
    const at = name.lastIndexOf('@');
    const rows =
      at > 0 ? await loginUsersByDomainOrName(this.dataSource, name.slice(0, at), name.slice(at + 1), name) : await loginUsersByName(this.dataSource, name);
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
    mfaEnrolmentRequired: flag(row.mfa_enrolment_required),
    failedPasswordChecks: Number(row.failed_password_checks),
    failuresLockedAt: row.failures_locked_at == null ? null : new Date(Number(row.failures_locked_at)),
    passwordSetAt: new Date(Number(row.password_set_at)),
    version: Number(row.version),
    email: row.email == null ? null : String(row.email),
    emailVerified: flag(row.email_verified),
    preferredLanguage: (row.preferred_language as string | null) ?? null,
    loginName: `${userName}@${row.primary_domain == null ? '' : String(row.primary_domain)}`,
  };
}
