import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn } from '../../common/database/columns.js';

/** What a one-time code lets its holder do (docs/mail.md). */
export type CodePurpose = 'invitation' | 'password_reset' | 'email_verification';

/**
 * A one-time code sent by mail (docs/mail.md, "Codes"): only an HMAC of its secret is kept, with the address it was
 * sent to. A newer code of the same purpose replaces it, a password change or a change of the user's address deletes
 * every code of the user, and using it deletes it.
 */
@Entity({ name: 'user_codes' })
export class UserCodeEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ type: 'varchar', length: 32 })
  purpose: CodePurpose;

  /** The address the link was mailed to: following it proves this mailbox, and no other. */
  @Column({ type: 'varchar', length: 320 })
  address: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash: string;

  @Column({ name: 'created_at', ...counterColumn })
  createdAt: number;

  @Column({ name: 'expires_at', ...counterColumn })
  expiresAt: number;
}
