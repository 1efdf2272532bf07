import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../../common/database/columns.js';

export type SamlNameIdFormat = 'persistent' | 'emailAddress' | 'unspecified' | 'transient';
export type SamlAttributeSource = 'userName' | 'email' | 'givenName' | 'familyName' | 'displayName' | 'groups' | 'roles' | 'userId';
export type SamlAttributeNameFormat = 'basic' | 'uri' | 'unspecified';

/** One attribute of the assertion: its name, the user's value it carries, and how its name is to be read. */
export interface SamlAttributeMapping {
  name: string;
  from: SamlAttributeSource;
  nameFormat?: SamlAttributeNameFormat;
}

/** What a SAML application (an `applications` row of kind `saml`) adds: the service provider it is (docs/saml.md). */
@Entity({ name: 'saml_applications' })
export class SamlApplicationEntity {
  @PrimaryColumn({ name: 'app_id', type: 'varchar', length: 64 })
  appId: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  /** The SP's entity id, unique in the organization: an AuthnRequest's `Issuer` finds the application by it. */
  @Column({ name: 'entity_id', type: 'varchar', length: 512 })
  entityId: string;

  /** HTTP-POST AssertionConsumerService URLs; a response goes only to one of them, matched exactly. */
  @Column({ name: 'acs_urls', ...jsonColumn })
  acsUrls: string[];

  @Column({ name: 'name_id_format', type: 'varchar', length: 16 })
  nameIdFormat: SamlNameIdFormat;

  @Column({ ...jsonColumn })
  attributes: SamlAttributeMapping[];

  @Column({ name: 'sign_assertion', type: 'boolean' })
  signAssertion: boolean;

  @Column({ name: 'sign_response', type: 'boolean' })
  signResponse: boolean;

  @Column({ name: 'encrypt_assertion', type: 'boolean' })
  encryptAssertion: boolean;

  /** The SP's certificate, PEM: verifies its signed requests, encrypts assertions to it. */
  @Column({ name: 'sp_certificate', type: 'text', nullable: true })
  spCertificate: string | null;

  @Column({ name: 'require_signed_requests', type: 'boolean' })
  requireSignedRequests: boolean;

  @Column({ name: 'slo_url', type: 'varchar', length: 2048, nullable: true })
  sloUrl: string | null;

  @Column({ name: 'allow_idp_initiated', type: 'boolean' })
  allowIdpInitiated: boolean;

  /** The RelayState of IdP-initiated responses: a page of the SP (an ACS URL's origin, or a path); none when null. */
  @Column({ name: 'idp_initiated_relay_state', type: 'varchar', length: 200, nullable: true })
  idpInitiatedRelayState: string | null;
}
