import type { NewSamlApplication } from '../users/saml-application.rules.js';

/**
 * What a source document says, in Portcullis's terms, before anything is compared with the instance or written:
 * each source (keycloak/, …) reads its export into this, and MigrationRunner brings it in.
 */
export interface PlannedUser {
  /** The source's id: kept as the user's id (so `sub` stays) unless `keepSubjects` is false. */
  sourceId: string;
  userName: string;
  firstName: string;
  lastName: string;
  email: string | null;
  emailVerified: boolean;
  phone: string | null;
  preferredLanguage: string | null;
  enabled: boolean;
  createdAt: number | null;
  /** A hash in a format the login verifies, or null (the user sets a password through recovery). */
  passwordHash: string | null;
  /** Base32 TOTP secret. */
  totpSecret: string | null;
  passwordChangeRequired: boolean;
  /** Keycloak's `CONFIGURE_TOTP`: the user enrols a second factor at the next sign-in (absent: none owed). */
  mfaEnrolmentRequired?: boolean;
  /** Sources that hold them (ZITADEL): kept as they are; else made from the names. */
  displayName?: string;
  nickName?: string | null;
  gender?: string | null;
  phoneVerified?: boolean;
}

/** A machine user (ZITADEL's service users): its id kept, so tokens it asked for name the same `sub`. */
export interface PlannedMachine {
  sourceId: string;
  userName: string;
  name: string;
  description: string | null;
  accessTokenType: 'opaque' | 'jwt';
  /**
   * The id to create it with whatever `keepSubjects` says: a Keycloak service account's client id, which is the
   * machine's client id here (its user id), so its `client_credentials` requests keep working unchanged.
   */
  id?: string;
  /** A client secret the source kept (Keycloak's service accounts): stored only as a hash, never in the id map. */
  secret?: string;
}

/**
 * A SAML service provider: a project of its name with one SAML application (docs/saml.md), with the application's
 * default attributes; its certificate (`spCertificate`) as base64 DER as Keycloak exports it, or null.
 */
export interface PlannedSamlApp extends Omit<NewSamlApplication, 'attributes'> {
  sourceId: string;
}

/** An upstream OpenID Connect IdP (Keycloak's identity providers), keyed by its alias. */
export interface PlannedOidcIdp {
  type?: 'oidc';
  sourceId: string;
  name: string;
  issuer: string;
  clientId: string;
  /** Stored only encrypted by the federation room, never in the id map or the report. */
  clientSecret: string;
  authMethod: 'client_secret_basic' | 'client_secret_post';
  scopes: string[];
}

/** An upstream SAML IdP (Keycloak's `saml` identity providers), keyed by its alias; its metadata made from its settings. */
export interface PlannedSamlIdp {
  type: 'saml';
  sourceId: string;
  name: string;
  metadataXml: string;
  nameIdFormat: string;
  signAuthnRequests: boolean;
}

export type PlannedIdp = PlannedOidcIdp | PlannedSamlIdp;

/** A user's identity at an upstream IdP: signing in through it is this user. */
export interface PlannedIdpLink {
  userSourceId: string;
  idpSourceId: string;
  /** The upstream's `sub` for the user. */
  subject: string;
}

/** An application of a project: an OIDC client or an API (resource server). */
export interface PlannedApp {
  sourceId: string;
  kind: 'oidc' | 'api';
  name: string;
  authMethod: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  accessTokenType: 'opaque' | 'jwt';
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  devMode: boolean;
  idTokenUserinfoAssertion: boolean;
  backchannelLogoutUri: string | null;
}

/** A project with its roles, applications and the users granted its roles (ZITADEL's projects). */
export interface PlannedProject {
  sourceId: string;
  name: string;
  roles: { key: string; displayName: string | null }[];
  apps: PlannedApp[];
  /** User source id → the role keys the user holds in the project. */
  grants: Map<string, string[]>;
}

/** A user's roles in the organization (ORG_OWNER, ORG_USER_MANAGER). */
export interface PlannedMember {
  userSourceId: string;
  roles: ('ORG_OWNER' | 'ORG_USER_MANAGER')[];
}

export interface PlannedGroup {
  sourceId: string;
  displayName: string;
  externalId: string | null;
  /** Source ids of the members (users of this document). */
  memberSourceIds: string[];
}

/** An OIDC client: a project of its name with one application keeping the client's id and secret. */
export interface PlannedClient {
  sourceId: string;
  clientId: string;
  /** The project's name: the client's `name`, else its `clientId`. */
  name: string;
  /** Null for a public client (`none` with PKCE). */
  secret: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  devMode: boolean;
  backchannelLogoutUri: string | null;
  /** The client's roles, as project role keys. */
  roles: string[];
  /** User source id → the client's role keys the user holds (directly, through groups and their parents, through composites). */
  grants: Map<string, string[]>;
}

/** An object of the document that stays out, and why: listed in the report, which never holds a value of a secret. */
export interface Failure {
  kind: string;
  sourceId: string;
  message: string;
}

export interface Unmapped {
  /** JSON path into the document, e.g. `users[3].attributes.department`. */
  path: string;
  reason: string;
}

export interface MigrationPlan {
  /** What the source's ids are unique within (a Keycloak realm's id). */
  container: string;
  orgName: string;
  users: PlannedUser[];
  groups: PlannedGroup[];
  clients: PlannedClient[];
  machines?: PlannedMachine[];
  samlApps?: PlannedSamlApp[];
  idps?: PlannedIdp[];
  idpLinks?: PlannedIdpLink[];
  projects?: PlannedProject[];
  members?: PlannedMember[];
  failures: Failure[];
  unmapped: Unmapped[];
}

/** Users one request may hold: a larger export goes in several requests (the CLI splits it, docs/migrating.md). */
export const MAX_USERS_PER_REQUEST = 100_000;

/** A structural fault of the document: the whole request is refused with 400 naming the path. */
export class DocumentFault extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}
