import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../../common/database/columns.js';
import type { JsonDocument } from '../../common/database/columns.js';

/**
 * An initial access token (RFC 7591 §3): registers clients bound to the token's organization, as many as it has uses
 * left (one unless issued with more), until it expires.
 */
@Entity({ name: 'agent_registration_tokens' })
export class AgentRegistrationTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  /** Keyed hash of the token; the token itself is shown once. */
  @Column({ name: 'token_hash', type: 'varchar', length: 100 })
  tokenHash: string;

  @Column({ name: 'expires_at', ...timestampColumn })
  expiresAt: Date;

  /** Registrations it may still make; each takes one in the registration's own transaction. */
  @Column({ name: 'uses_left', type: 'int', default: 1 })
  usesLeft: number;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}

/** A client that registered itself (RFC 7591), bound to one organization once known. */
@Entity({ name: 'dynamic_clients' })
export class DynamicClientEntity {
  @PrimaryColumn({ name: 'client_id', type: 'varchar', length: 64 })
  clientId: string;

  /** Null until an openly registered client's first code names a resource. */
  @Column({ name: 'org_id', type: 'varchar', length: 64, nullable: true })
  orgId: string | null;

  @Column({ ...jsonColumn })
  metadata: JsonDocument;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'last_used_at', ...timestampColumn })
  lastUsedAt: Date;
}
