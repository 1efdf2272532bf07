import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ScheduledKeyColumns } from '../../common/crypto/key-schedule/scheduled-key.columns.js';

/** A key that signs SAML responses and assertions of every organization's IdP; the private key is sealed with the master key. */
@Entity({ name: 'saml_signing_keys' })
export class SamlSigningKeyEntity extends ScheduledKeyColumns {
  /** The SHA-256 thumbprint of the certificate, hex. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** Self-signed X.509 certificate of the key, PEM; published in the IdP metadata. */
  @Column({ name: 'certificate_pem', type: 'text' })
  certificatePem: string;

  @Column({ name: 'private_key_encrypted', type: 'text' })
  privateKeyEncrypted: string;
}
