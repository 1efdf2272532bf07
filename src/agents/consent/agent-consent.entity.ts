import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../../common/database/columns.js';

/**
 * What a person allowed an agent client (a self-registered one) to do at one resource: the scopes, remembered so the
 * same or fewer are not asked again (docs/agents.md, "Consent and connected agents"). `resource` is '' for none.
 */
@Entity({ name: 'agent_consents' })
export class AgentConsentEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'client_id', type: 'varchar', length: 500 })
  clientId: string;

  /** The client's name when consent was given, so the lists still name a client whose registration lapsed. */
  @Column({ name: 'client_name', type: 'varchar', length: 200 })
  clientName: string;

  @Column({ type: 'varchar', length: 500 })
  resource: string;

  @Column({ ...jsonColumn })
  scopes: string[];

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
