import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn, jsonColumn, timestampColumn } from '../common/database/columns.js';
import type { JsonDocument } from '../common/database/columns.js';

/** A webhook subscription and its outbox cursor (migration 1763701800000-webhooks). */
@Entity({ name: 'webhook_subscriptions' })
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** `instance`, or the organization that created it. */
  @Column({ type: 'varchar', length: 64 })
  owner: string;

  /** Only events whose resource owner is this organization; null: all. */
  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId: string | null;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** A JSON array of event types; null: every type. */
  @Column({ name: 'event_types', ...jsonColumn, nullable: true })
  eventTypes: JsonDocument | null;

  /** The signing secret, encrypted with the master key (src/common/crypto/encryptor.ts). */
  @Column({ type: 'varchar', length: 255 })
  secret: string;

  /** The last event position delivered or given up on. */
  @Column({ name: 'cursor_position', ...counterColumn })
  cursorPosition: number;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'leased_until', ...counterColumn, default: 0 })
  leasedUntil: number;

  @Column({ name: 'next_attempt_at', ...counterColumn, default: 0 })
  nextAttemptAt: number;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
