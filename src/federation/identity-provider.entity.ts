import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../common/database/columns.js';

/** An organization's upstream identity provider (migration 1763702200000-identity-providers). */
@Entity({ name: 'identity_providers' })
export class IdentityProviderEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  /** `oidc` or `saml`. */
  @Column({ type: 'varchar', length: 8 })
  type: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Everything but the secret, as JSON (idp-settings.ts). */
  @Column({ type: 'text' })
  settings: string;

  /** The OIDC client secret, encrypted with the master key (src/common/crypto/encryptor.ts); never returned. */
  @Column({ name: 'client_secret', type: 'varchar', length: 1024, nullable: true })
  clientSecret: string | null;

  /** SAML: this SP's private key for this IdP (PKCS#8 PEM), encrypted with the master key; never returned. */
  @Column({ name: 'sp_private_key', type: 'text', nullable: true })
  spPrivateKey: string | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}

/** An e-mail domain an IdP claims for home-realm discovery: a verified domain of its organization, one IdP per domain. */
@Entity({ name: 'idp_domains' })
export class IdpDomainEntity {
  @PrimaryColumn({ type: 'varchar', length: 253 })
  domain: string;

  @Column({ name: 'idp_id', type: 'varchar', length: 64 })
  idpId: string;
}

/** The ID of a SAML assertion accepted once, kept until it expires (the replay cache, docs/federation.md, "SAML"). */
@Entity({ name: 'saml_assertions_seen' })
export class SamlAssertionSeenEntity {
  @PrimaryColumn({ name: 'assertion_hash', type: 'varchar', length: 64 })
  assertionHash: string;

  @Column({ name: 'idp_id', type: 'varchar', length: 64 })
  idpId: string;

  @Column({ name: 'expires_at', type: 'bigint' })
  expiresAt: string;
}
