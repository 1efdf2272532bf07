import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../database/columns.js';
import type { JsonDocument } from '../database/columns.js';

/** One entry of the append-only event log (docs/product-rules.md, "Domain"). Written in the transaction of its change. */
@Entity({ name: 'events' })
export class EventEntity {
  /** Monotonic position; exposed as `sequence` by event search. mysql2 may hand BIGINT back as a string. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  position: number | string;

  @Column({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  type: string;

  @Column({ name: 'aggregate_type', type: 'varchar', length: 64 })
  aggregateType: string;

  @Column({ name: 'aggregate_id', type: 'varchar', length: 64 })
  aggregateId: string;

  /** Organization id owning the aggregate, or `instance`. */
  @Column({ name: 'resource_owner', type: 'varchar', length: 64 })
  resourceOwner: string;

  @Column({ name: 'editor_user_id', type: 'varchar', length: 64, nullable: true })
  editorUserId: string | null;

  @Column({ ...jsonColumn })
  payload: JsonDocument;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
