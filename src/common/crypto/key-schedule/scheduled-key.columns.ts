import { Column } from 'typeorm';
import { timestampColumn } from '../../database/columns.js';
import type { ScheduledKey } from './key-schedule.js';

/**
 * The times a signing key is scheduled by (key-schedule.ts), as columns: the OIDC keys' table and the SAML keys'
 * (src/saml/keys) each have them. TypeORM maps the columns of this base into each entity's own table.
 */
export abstract class ScheduledKeyColumns implements ScheduledKey {
  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  /** A scheduled (next) key is published from `createdAt` and signs from here; until then the older key signs. */
  @Column({ name: 'signs_from', ...timestampColumn })
  signsFrom: Date;

  /** When a newer key takes over (possibly in the future, set when that key is scheduled). */
  @Column({ name: 'retired_at', ...timestampColumn, nullable: true })
  retiredAt: Date | null;

  /** Published until then: past the end of everything it signed. */
  @Column({ name: 'publish_until', ...timestampColumn, nullable: true })
  publishUntil: Date | null;
}
