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

/** A browser's trip to an upstream IdP and back (migration 1763702300000-idp-round-trips; round-trips.ts). */
@Entity({ name: 'idp_round_trips' })
export class IdpRoundTripEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'state_hash', type: 'varchar', length: 64 })
  stateHash: string;

  @Column({ name: 'idp_id', type: 'varchar', length: 64 })
  idpId: string;

  @Column({ name: 'interaction_uid', type: 'varchar', length: 64 })
  interactionUid: string;

  /** The PKCE verifier and the nonce, encrypted. */
  @Column({ type: 'varchar', length: 1024 })
  secrets: string;

  /** What the upstream sent back (code, iss or error), encrypted; null until it did. */
  @Column({ type: 'text', nullable: true })
  answer: string | null;

  @Column({ name: 'expires_at', ...counterColumn })
  expiresAt: number;
}
