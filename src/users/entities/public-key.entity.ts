import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

type PublicKeyOwner = 'application' | 'machine';

/**
 * Public half of a key pair whose private half was handed to its owner once: an application's key for
 * `private_key_jwt` client authentication, or a machine user's key for the JWT profile grant.
 */
@Entity({ name: 'public_keys' })
export class PublicKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'owner_type', type: 'varchar', length: 16 })
  ownerType: PublicKeyOwner;

  /** Application id or machine user id. */
  @Column({ name: 'owner_id', type: 'varchar', length: 64 })
  ownerId: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  /** SPKI PEM. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  @Column({ name: 'expires_at', ...timestampColumn, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
