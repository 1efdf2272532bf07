import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../../common/database/columns.js';
import type { ClientJwks } from '../../common/crypto/client-jwks.js';
import type { AccessTokenType } from './user.entity.js';

type ApplicationKind = 'oidc' | 'api' | 'saml';
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
/** OIDC Core §8: the user id as `sub`, or a value of the application's own per sector (docs/oauth-profiles.md). */
export type SubjectType = 'public' | 'pairwise';
/** A scope an API application defines (RFC 6749 §3.3 scope-token) and what the person is told it allows. */
export interface ResourceScope {
  name: string;
  description: string;
}
export const SUBJECT_TYPES: readonly SubjectType[] = ['public', 'pairwise'];
/** Who may sign in to the application (docs/product-rules.md, "Application access"). */
export type ApplicationAccessMode = 'everyone' | 'granted';
export const APPLICATION_ACCESS_MODES: readonly ApplicationAccessMode[] = ['everyone', 'granted'];

/** An OIDC client (`oidc`) or a resource server that may only introspect (`api`). */
@Entity({ name: 'applications' })
export class ApplicationEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'project_id', type: 'varchar', length: 64 })
  projectId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 8 })
  kind: ApplicationKind;

  @Column({ name: 'client_id', type: 'varchar', length: 100 })
  clientId: string;

  /** Keyed hash of the client secret; the secret itself is shown once at creation. */
  @Column({ name: 'client_secret_hash', type: 'varchar', length: 100, nullable: true })
  clientSecretHash: string | null;

  @Column({ name: 'auth_method', type: 'varchar', length: 32 })
  authMethod: ClientAuthMethod;

  @Column({ name: 'redirect_uris', ...jsonColumn })
  redirectUris: string[];

  @Column({ name: 'post_logout_redirect_uris', ...jsonColumn })
  postLogoutRedirectUris: string[];

  @Column({ name: 'response_types', ...jsonColumn })
  responseTypes: string[];

  @Column({ name: 'grant_types', ...jsonColumn })
  grantTypes: string[];

  @Column({ name: 'access_token_type', type: 'varchar', length: 16 })
  accessTokenType: AccessTokenType;

  @Column({ name: 'id_token_userinfo_assertion', type: 'boolean', default: false })
  idTokenUserinfoAssertion: boolean;

  /**
   * A first-party application: its users' tokens may carry the Portcullis API audience, and it signs in
   * users of every organization (SECURITY.md). Only an IAM_OWNER can register one.
   */
  @Column({ name: 'api_access', type: 'boolean', default: false })
  apiAccess: boolean;

  /** Allows http and loopback redirect URIs (docs/product-rules.md, "OpenID Connect and OAuth"). */
  @Column({ name: 'dev_mode', type: 'boolean', default: false })
  devMode: boolean;

  /** Authorization requests only by PAR (RFC 9126 §6, `require_pushed_authorization_requests`). */
  @Column({ name: 'require_par', type: 'boolean', default: false })
  requirePushedAuthorizationRequests: boolean;

  /** Authorization requests only as request objects signed with the application's keys (RFC 9101 §10.5). */
  @Column({ name: 'require_signed_request_object', type: 'boolean', default: false })
  requireSignedRequestObject: boolean;

  /** Request objects only with `exp` (docs/oauth-profiles.md, "Signed request objects"); RFC 9101 does not require it. */
  @Column({ name: 'request_object_requires_exp', type: 'boolean', default: false })
  requestObjectRequiresExp: boolean;

  /** JARM's signing algorithm for this application (docs/oauth-profiles.md); null: the instance's signing algorithm. */
  @Column({ name: 'authorization_signed_response_alg', type: 'varchar', length: 16, nullable: true })
  authorizationSignedResponseAlg: string | null;

  /** Access tokens only DPoP-bound (RFC 9449 §5.2, `dpop_bound_access_tokens`). */
  @Column({ name: 'dpop_bound_access_tokens', type: 'boolean', default: false })
  dpopBoundAccessTokens: boolean;

  /** May open Shared Signals streams about the people it may enter (docs/signals.md, "Receivers"). */
  @Column({ name: 'ssf_receiver', type: 'boolean', default: false })
  ssfReceiver: boolean;

  /** Where logout tokens are sent (OIDC Back-Channel Logout 1.0 §2.2). */
  @Column({ name: 'backchannel_logout_uri', type: 'varchar', length: 2000, nullable: true })
  backchannelLogoutUri: string | null;

  @Column({ name: 'backchannel_logout_session_required', type: 'boolean', default: false })
  backchannelLogoutSessionRequired: boolean;

  /** The application's own public keys (RFC 7591 §2 `jwks`); null: none (docs/oauth-profiles.md, "Client keys"). */
  @Column({ name: 'jwks', ...jsonColumn, nullable: true })
  jwks: ClientJwks | null;

  /** Where the application serves its public keys (RFC 7591 §2 `jwks_uri`); null: none. */
  @Column({ name: 'jwks_uri', type: 'varchar', length: 2000, nullable: true })
  jwksUri: string | null;
  /** OIDC Core §8: `pairwise` gives this application's sector a `sub` of its own (docs/oauth-profiles.md, "Pairwise subjects"). */
  @Column({ name: 'subject_type', type: 'varchar', length: 8, default: 'public' })
  subjectType: SubjectType;

  /** An API application's resource indicator (RFC 8707 §2), unique in the instance; null: none (docs/agents.md, "Resources"). */
  @Column({ name: 'resource_uri', type: 'varchar', length: 500, nullable: true })
  resourceUri: string | null;

  /** The scopes an API application defines for its resource (docs/agents.md, "Resources"); null: none. */
  @Column({ name: 'resource_scopes', ...jsonColumn, nullable: true })
  resourceScopes: ResourceScope[] | null;

  /** `granted`: only users with a grant in the project, directly or through a group (docs/product-rules.md, "Application access"). */
  @Column({ type: 'varchar', length: 16, default: 'everyone' })
  access: ApplicationAccessMode;

  /** Where a person starts using the application, listed on their page of applications; null: not listed. */
  @Column({ name: 'home_url', type: 'varchar', length: 2000, nullable: true })
  homeUrl: string | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
