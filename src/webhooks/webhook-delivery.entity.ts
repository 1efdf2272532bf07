import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn } from '../common/database/columns.js';

/** One event's delivery to one subscription: the attempts so far and how the last one ended. */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDeliveryEntity {
  @PrimaryColumn({ name: 'subscription_id', type: 'varchar', length: 64 })
  subscriptionId: string;

  @PrimaryColumn({ name: 'position', ...counterColumn })
  position: number;

  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId: string;

  /** `delivered`, `pending` (an attempt failed; another is scheduled) or `failing` (given up on). */
  @Column({ type: 'varchar', length: 16 })
  status: string;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'last_status', type: 'int', nullable: true })
  lastStatus: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @Column({ name: 'first_attempt_at', ...counterColumn })
  firstAttemptAt: number;

  @Column({ name: 'last_attempt_at', ...counterColumn })
  lastAttemptAt: number;

  @Column({ name: 'next_attempt_at', ...counterColumn, nullable: true })
  nextAttemptAt: number | null;
}
