import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A sign-in through an upstream SAML IdP with a single logout endpoint, as single logout names it again (SAML Core
 * §3.7.1: the NameID and SessionIndex of the assertion), tied first to the interaction that signed in and then to the
 * login session it made; while a sign-out at this instance waits for the IdP's LogoutResponse, the request's ID and
 * where the browser goes after it (migration 1795760795760-upstream-saml-sessions; docs/federation.md).
 */
@Entity({ name: 'upstream_saml_sessions' })
export class UpstreamSamlSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'idp_id', type: 'varchar', length: 64 })
  idpId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'interaction_uid', type: 'varchar', length: 64, nullable: true })
  interactionUid: string | null;

  @Column({ name: 'session_uid', type: 'varchar', length: 64, nullable: true })
  sessionUid: string | null;

  @Column({ name: 'name_id', type: 'varchar', length: 512 })
  nameId: string;

  @Column({ name: 'name_id_format', type: 'varchar', length: 200 })
  nameIdFormat: string;

  @Column({ name: 'name_qualifier', type: 'varchar', length: 512, nullable: true })
  nameQualifier: string | null;

  @Column({ name: 'sp_name_qualifier', type: 'varchar', length: 512, nullable: true })
  spNameQualifier: string | null;

  @Column({ name: 'session_index', type: 'varchar', length: 512, nullable: true })
  sessionIndex: string | null;

  /** Keyed hash of the RelayState of the LogoutRequest sent, while its answer is awaited. */
  @Column({ name: 'logout_state_hash', type: 'varchar', length: 64, nullable: true })
  logoutStateHash: string | null;

  @Column({ name: 'logout_request_id', type: 'varchar', length: 64, nullable: true })
  logoutRequestId: string | null;

  @Column({ name: 'after_logout', type: 'text', nullable: true })
  afterLogout: string | null;

  @Column({ name: 'expires_at', type: 'bigint' })
  expiresAt: string;
}
