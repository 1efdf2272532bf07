import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../common/database/columns.js';

/**
 * What an earlier run made of one object of a source (docs/migrating.md, "Running it again"): keyed by the source,
 * the source's container (a Keycloak realm's id) and the object's kind and id, it names the object made here and a
 * fingerprint of what the source said, so a second run knows what is unchanged.
 */
@Entity({ name: 'migrated_objects' })
export class MigratedObjectEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 })
  source: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  container: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  kind: string;

  @PrimaryColumn({ name: 'source_id', type: 'varchar', length: 255 })
  sourceId: string;

  @Column({ name: 'target_id', type: 'varchar', length: 64 })
  targetId: string;

  /** SHA-256 (hex) of the mapped object, without secrets in clear. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
