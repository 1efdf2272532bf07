import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ScheduledKeyColumns } from '../../common/crypto/key-schedule/scheduled-key.columns.js';

/** A key that signs ID tokens and JWT access tokens; the private JWK is sealed with the master key. */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity extends ScheduledKeyColumns {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 16 })
  alg: string;

  @Column({ name: 'public_jwk', type: 'text' })
  publicJwk: string;

  @Column({ name: 'private_jwk_encrypted', type: 'text' })
  privateJwkEncrypted: string;
}
