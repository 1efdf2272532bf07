import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn } from '../common/database/columns.js';

/** A live process's dispatcher (its `lease_owner` name), renewed every second: the processes share subscriptions evenly. */
@Entity({ name: 'webhook_dispatchers' })
export class WebhookDispatcherEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  owner: string;

  @Column({ name: 'alive_until', ...counterColumn })
  aliveUntil: number;
}
