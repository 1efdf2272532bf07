import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/**
 * A resource at another authorization server for which this instance, as the enterprise IdP, issues ID-JAGs to the
 * people granted in `projectId` (docs/agents.md, "Enterprise-managed authorization").
 */
@Entity({ name: 'external_resources' })
export class ExternalResourceEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'project_id', type: 'varchar', length: 64 })
  projectId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** The issuer of the resource's authorization server: the ID-JAG's `aud`. */
  @Column({ type: 'varchar', length: 2000 })
  issuer: string;

  /** The resource indicator (RFC 8707) of the MCP server or API: the ID-JAG's `resource`. */
  @Column({ type: 'varchar', length: 2000 })
  resource: string;

  /** JSON array of scope names the ID-JAG may carry. */
  @Column({ type: 'text' })
  scopes: string;

  /** The client id of the requesting client at that authorization server: the ID-JAG's `client_id`. */
  @Column({ name: 'client_id_at_issuer', type: 'varchar', length: 255 })
  clientIdAtIssuer: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
