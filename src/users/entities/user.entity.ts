import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../../common/database/columns.js';
import type { JsonDocument } from '../../common/database/columns.js';

type UserType = 'human' | 'machine';
export type UserState = 'active' | 'inactive' | 'locked';
export type AccessTokenType = 'opaque' | 'jwt';

/**
 * Human and machine users share one table: both are principals of one organization with a
 * case-insensitively unique userName (kept lower-cased in `user_name_lower` so SQLite and MySQL agree).
 */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ type: 'varchar', length: 16 })
  type: UserType;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName: string;

  @Column({ name: 'user_name_lower', type: 'varchar', length: 255 })
  userNameLower: string;

  @Column({ type: 'varchar', length: 16 })
  state: UserState;

  @Column({ name: 'external_id', type: 'varchar', length: 255, nullable: true })
  externalId: string | null;

  @Column({ name: 'given_name', type: 'varchar', length: 200, nullable: true })
  givenName: string | null;

  @Column({ name: 'family_name', type: 'varchar', length: 200, nullable: true })
  familyName: string | null;

  /** Human: display name; machine: its `name`. */
  @Column({ name: 'display_name', type: 'varchar', length: 255, nullable: true })
  displayName: string | null;

  @Column({ name: 'nick_name', type: 'varchar', length: 200, nullable: true })
  nickName: string | null;

  @Column({ name: 'preferred_language', type: 'varchar', length: 35, nullable: true })
  preferredLanguage: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  gender: string | null;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  @Column({ name: 'email_lower', type: 'varchar', length: 320, nullable: true })
  emailLower: string | null;

  @Column({ name: 'email_verified', type: 'boolean', default: false })
  emailVerified: boolean;

  /** E.164-like: no spaces or dashes, leading `+` kept. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  phone: string | null;

  @Column({ name: 'phone_verified', type: 'boolean', default: false })
  phoneVerified: boolean;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash: string | null;

  @Column({ name: 'password_change_required', type: 'boolean', default: false })
  passwordChangeRequired: boolean;

  /** A second factor is owed: enrolment is required at the next sign-in, whatever the login policy (a moved-in `CONFIGURE_TOTP`). */
  @Column({ name: 'mfa_enrolment_required', type: 'boolean', default: false })
  mfaEnrolmentRequired: boolean;

  @Column({ name: 'failed_password_checks', type: 'int', default: 0 })
  failedPasswordChecks: number;

  /** When the current password was set; null: when the user was made (the password's age, docs/operations.md). */
  @Column({ name: 'password_changed_at', ...timestampColumn, nullable: true })
  passwordChangedAt: Date | null;

  /** When failed checks locked the user, which the lockout's lock time ends; null for any other state or lock. */
  @Column({ name: 'failures_locked_at', ...timestampColumn, nullable: true })
  failuresLockedAt: Date | null;

  /** Machine users: what the service account is for. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Machine users: the format of the access tokens they are issued. */
  @Column({ name: 'access_token_type', type: 'varchar', length: 16, nullable: true })
  accessTokenType: AccessTokenType | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  title: string | null;

  @Column({ name: 'user_type', type: 'varchar', length: 100, nullable: true })
  userType: string | null;

  @Column({ type: 'varchar', length: 35, nullable: true })
  locale: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  timezone: string | null;

  @Column({ name: 'profile_url', type: 'varchar', length: 1000, nullable: true })
  profileUrl: string | null;

  /**
   * SCIM attributes the core model lacks (name parts, all emails and phone numbers with their types,
   * addresses, ims, photos, roles, entitlements, the enterprise extension), kept as one JSON document.
   */
  @Column({ name: 'scim_attributes', ...jsonColumn, nullable: true })
  scimAttributes: JsonDocument | null;

  /** The user name, e-mail and names, case-folded, for the management API's search (rules/user-search.ts). */
  @Column({ name: 'search_text', type: 'varchar', length: 400, nullable: true })
  searchText: string | null;

  /** Incremented on every write; SCIM `meta.version`. */
  @Column({ type: 'int', default: 1 })
  version: number;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
