import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn, timestampColumn } from '../../common/database/columns.js';

export const FACTOR_TYPES = ['totp', 'passkey', 'recovery_codes'] as const;
export type FactorType = (typeof FACTOR_TYPES)[number];

/** A human user's second factor: a TOTP authenticator, a passkey or a set of recovery codes. */
@Entity({ name: 'user_factors' })
export class UserFactorEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  type: FactorType;

  /** `pending` from the start of an enrolment until its first code or credential is verified. */
  @Column({ type: 'varchar', length: 16 })
  state: 'pending' | 'active';

  @Column({ type: 'varchar', length: 200, nullable: true })
  name: string | null;

  /** TOTP: the base32 secret, encrypted with the master key (Encryptor). */
  @Column({ name: 'totp_secret', type: 'text', nullable: true })
  totpSecret: string | null;

  /** TOTP: the time step of the last accepted code; a code of this step or an earlier one is refused. */
  @Column({ name: 'totp_last_step', ...counterColumn, nullable: true })
  totpLastStep: number | null;

  /** Passkey: SHA-256 (hex) of the credential id, unique over the instance. */
  @Column({ name: 'credential_key', type: 'varchar', length: 64, nullable: true })
  credentialKey: string | null;

  /** Passkey: the credential id, base64url. */
  @Column({ name: 'credential_id', type: 'text', nullable: true })
  credentialId: string | null;

  /** Passkey: the COSE public key, base64url. */
  @Column({ name: 'public_key', type: 'text', nullable: true })
  publicKey: string | null;

  @Column({ name: 'sign_count', ...counterColumn, nullable: true })
  signCount: number | null;

  /** Passkey: the authenticator's transports, comma-separated (hints for the browser). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  transports: string | null;

  /** Passkey: whether it may be synced to other devices (a software key, RFC 8176 `swk`) or not (`hwk`). */
  @Column({ name: 'multi_device', type: 'boolean', nullable: true })
  multiDevice: boolean | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'last_used_at', ...timestampColumn, nullable: true })
  lastUsedAt: Date | null;
}
