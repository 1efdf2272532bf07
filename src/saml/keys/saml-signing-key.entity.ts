import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** A key that signs SAML responses and assertions of every organization's IdP; the private key is sealed with the master key. */
@Entity({ name: 'saml_signing_keys' })
export class SamlSigningKeyEntity {
  /** The SHA-256 thumbprint of the certificate, hex. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** Self-signed X.509 certificate of the key, PEM; published in the IdP metadata. */
  @Column({ name: 'certificate_pem', type: 'text' })
  certificatePem: string;

  @Column({ name: 'private_key_encrypted', type: 'text' })
  privateKeyEncrypted: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  /** A next key is published from `createdAt` and signs from here; until then the older key signs. */
  @Column({ name: 'signs_from', ...timestampColumn })
  signsFrom: Date;

  /** When a newer key takes over (possibly in the future, set when that key is scheduled). */
  @Column({ name: 'retired_at', ...timestampColumn, nullable: true })
  retiredAt: Date | null;

  /** Stays in the metadata until then. */
  @Column({ name: 'publish_until', ...timestampColumn, nullable: true })
  publishUntil: Date | null;
}
