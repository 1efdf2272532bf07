import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** When a user last declined the login UI's offer to enrol a second factor (policy `optional`). */
@Entity({ name: 'mfa_offer_skips' })
export class MfaOfferSkipEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'skipped_at', ...timestampColumn })
  skippedAt: Date;
}
