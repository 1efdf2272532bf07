import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

export const INSTANCE_ID = 'instance';

/** The one instance of a deployment and its policies (docs/product-rules.md, "Domain"). Lifetimes in seconds. */
@Entity({ name: 'instance' })
export class InstanceEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'default_language', type: 'varchar', length: 35 })
  defaultLanguage: string;

  @Column({ name: 'lockout_max_attempts', type: 'int' })
  lockoutMaxAttempts: number;

  @Column({ name: 'password_min_length', type: 'int' })
  passwordMinLength: number;

  @Column({ name: 'access_token_lifetime', type: 'int' })
  accessTokenLifetime: number;

  @Column({ name: 'id_token_lifetime', type: 'int' })
  idTokenLifetime: number;

  @Column({ name: 'refresh_token_idle_lifetime', type: 'int' })
  refreshTokenIdleLifetime: number;

  @Column({ name: 'refresh_token_absolute_lifetime', type: 'int' })
  refreshTokenAbsoluteLifetime: number;

  /** Written by instance-wide guards (src/users/queries/instance.ts), never read for its value. */
  @Column({ name: 'guard_version', type: 'int', default: 0 })
  guardVersion: number;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
