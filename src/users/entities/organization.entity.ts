import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

@Entity({ name: 'organizations' })
export class OrganizationEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** `<slug(name)>.<INSTANCE_DOMAIN>`, unique in the instance. */
  @Column({ name: 'primary_domain', type: 'varchar', length: 255 })
  primaryDomain: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
