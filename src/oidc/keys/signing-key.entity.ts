import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** A key that signs ID tokens and JWT access tokens; the private JWK is sealed with the master key. */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 16 })
  alg: string;

  @Column({ name: 'public_jwk', type: 'text' })
  publicJwk: string;

  @Column({ name: 'private_jwk_encrypted', type: 'text' })
  privateJwkEncrypted: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  /** A scheduled key is published from `createdAt` and signs from here; until then the older key signs. */
  @Column({ name: 'signs_from', ...timestampColumn })
  signsFrom: Date;

  /** When a newer key takes over (possibly in the future, set when that key is scheduled). */
  @Column({ name: 'retired_at', ...timestampColumn, nullable: true })
  retiredAt: Date | null;

  /** Stays in JWKS until then: past the expiry of every token it signed. */
  @Column({ name: 'publish_until', ...timestampColumn, nullable: true })
  publishUntil: Date | null;
}
