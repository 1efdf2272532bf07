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
  failures: Failure[];
  unmapped: Unmapped[];
}

/** A structural fault of the document: the whole request is refused with 400 naming the path. */
export class DocumentFault extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}
