import { Column, Entity, PrimaryColumn } from 'typeorm';
import { counterColumn } from '../common/database/columns.js';

/** An upstream identity (IdP, subject) linked to a user (migration 1763702200000-identity-providers). */
@Entity({ name: 'user_identities' })
export class UserIdentityEntity {
  @PrimaryColumn({ name: 'idp_id', type: 'varchar', length: 64 })
  idpId: string;

  /** OIDC `sub`, or the SAML NameID. */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  subject: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'linked_at', ...counterColumn })
  linkedAt: number;

  @Column({ name: 'last_used_at', ...counterColumn, nullable: true })
  lastUsedAt: number | null;
}
