import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

export const FEATURE_NAMES = ['tokenExchange', 'impersonation'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** Instance feature flags; a missing row means disabled. */
@Entity({ name: 'features' })
export class FeatureEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: FeatureName;

  @Column({ type: 'boolean' })
  enabled: boolean;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
