import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/**
 * One stored object of oidc-provider (a model name and its payload). `idHash` is the keyed hash of the
 * id: for tokens, codes and sessions the id is the secret itself, so it is never stored in the clear
 * (docs/product-rules.md, "OpenID Connect and OAuth"), and the payload is stored without its `jti`.
 */
@Entity({ name: 'oidc_payloads' })
export class OidcPayloadEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  model: string;

  @PrimaryColumn({ name: 'id_hash', type: 'varchar', length: 64 })
  idHash: string;

  @Column({ type: 'text' })
  payload: string;

  @Column({ name: 'grant_id', type: 'varchar', length: 64, nullable: true })
  grantId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  uid: string | null;

  /** The user it belongs to (its account; a client-credentials token's machine user), for revocation. */
  @Column({ name: 'account_id', type: 'varchar', length: 64, nullable: true })
  accountId: string | null;

  /** The client it was issued to (not for sessions), for revocation when the application goes. */
  @Column({ name: 'client_id', type: 'varchar', length: 100, nullable: true })
  clientId: string | null;

  /** A device code's user code (RFC 8628), as its keyed hash. */
  @Column({ name: 'user_code', type: 'varchar', length: 64, nullable: true })
  userCode: string | null;

  /** RFC 8628 §3.5: a device code's last poll and the interval its device must keep (`slow_down`), else NULL. */
  @Column({ name: 'last_polled_at', ...timestampColumn, nullable: true })
  lastPolledAt: Date | null;

  @Column({ name: 'poll_interval', type: 'integer', nullable: true })
  pollInterval: number | null;

  @Column({ name: 'expires_at', ...timestampColumn, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'consumed_at', ...timestampColumn, nullable: true })
  consumedAt: Date | null;
}
