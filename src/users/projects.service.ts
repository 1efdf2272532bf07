import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import type { EntityManager } from 'typeorm';
import { generateRsaKeyPair } from '../common/crypto/key-pairs.js';
import { SecretHasher, generateSecret } from '../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { ApplicationEntity } from './entities/application.entity.js';
import type { ApplicationAccessMode, ClientAuthMethod, ResourceScope, SubjectType } from './entities/application.entity.js';
import { resourceUriTaken, validateApiResource } from './api-resource.rules.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { validAccessMode, validHomeUrl } from './project-access/project-access.rules.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { ProjectEntity } from './entities/project.entity.js';
import { PublicKeyEntity } from './entities/public-key.entity.js';
import type { AccessTokenType } from './entities/user.entity.js';
import { validateOidcApplication } from './oidc-application.rules.js';
import { assertBackchannelLogoutTarget } from './backchannel-logout-target.js';
import { assertJwksUriTarget, storedJwks } from './client-keys.rules.js';
import type { ClientJwks } from '../common/crypto/client-jwks.js';
import { isIamOwner, noRoles } from './acting/acting-rule.js';
import { UserAccess } from './acting/user-access.service.js';
import { guardProjectIn } from './queries/project-guard.js';
import type { JsonObject } from '../common/database/columns.js';
import { samlApplicationFrom } from './saml-application.rules.js';
import type { SamlApplicationInput } from './saml-application.rules.js';
import { insertSamlSettings, samlEventFields } from './resources/saml-settings.js';
import { assertMaySetSsfReceiver } from './resources/application-access.js';
import { AppTokenLifetimes } from '../settings/app-token-lifetimes.service.js';
import type { AppLifetimesPatch } from '../settings/app-token-lifetimes.service.js';

export interface NewOidcApplication {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  responseTypes: string[];
  grantTypes: string[];
  authMethod: ClientAuthMethod;
  accessTokenType: AccessTokenType;
  idTokenUserinfoAssertion: boolean;
  devMode: boolean;
  /** First-party: user tokens may reach the Portcullis API. Only an IAM_OWNER may set it (the caller checks). */
  apiAccess: boolean;
  /** May open Shared Signals streams (docs/signals.md, "Receivers"); optional, default off. */
  ssfReceiver?: boolean;
  /** The OAuth and OIDC profiles (docs/oauth-profiles.md). */
  requirePushedAuthorizationRequests: boolean;
  requireSignedRequestObject: boolean;
  requestObjectRequiresExp: boolean;
  authorizationSignedResponseAlg: string | null;
  dpopBoundAccessTokens: boolean;
  backchannelLogoutUri: string | null;
  backchannelLogoutSessionRequired: boolean;
  /** The application's own keys, inline or at a URL (never both), instead of keys registered through `…/keys`. */
  jwks: ClientJwks | null;
  jwksUri: string | null;
  subjectType: SubjectType;
  /** Who may enter (docs/product-rules.md, "Application access"); default `everyone`. */
  access?: ApplicationAccessMode;
  /** The link on a person's page of applications; default none. */
  homeUrl?: string | null;
}

/** Who may enter an OIDC or SAML application, and its link (docs/product-rules.md, "Application access"). */
export interface ApplicationEntry {
  access?: ApplicationAccessMode;
  homeUrl?: string | null;
}

/** The profiles' settings (docs/oauth-profiles.md), all off: what an application created without them has. */
export const NO_PROFILES = {
  requirePushedAuthorizationRequests: false,
  requireSignedRequestObject: false,
  requestObjectRequiresExp: false,
  authorizationSignedResponseAlg: null,
  dpopBoundAccessTokens: false,
  backchannelLogoutUri: null,
  backchannelLogoutSessionRequired: false,
  jwks: null,
  jwksUri: null,
  subjectType: 'public',
} as const;

interface NewApiApplication {
  name: string;
  authMethod: 'client_secret_basic' | 'private_key_jwt';
  /** The format of tokens issued for its resource (docs/agents.md, "Resources"); default opaque. */
  accessTokenType?: AccessTokenType;
  resourceUri?: string | null;
  scopes?: ResourceScope[];
  /**
   * `granted`: only people with a grant in its project may connect an agent to its resource or get an ID-JAG
   * redemption token for it (docs/product-rules.md, "Application access"); default `everyone`.
   */
  access?: ApplicationAccessMode;
  /** A Shared Signals receiver (docs/signals.md, "Receivers"); only an ORG_OWNER of the organization sets it. */
  ssfReceiver?: boolean;
}

/** The columns only an API application fills: its resource (RFC 8707) and that resource's scopes. */
interface ResourceColumns {
  resourceUri?: string | null;
  resourceScopes?: ResourceScope[] | null;
}

/** What an application of another kind than OIDC stores in the OIDC fields: nothing that lets it act as a client. */
const NO_OIDC: NewOidcApplication = {
  name: '',
  authMethod: 'none',
  redirectUris: [],
  postLogoutRedirectUris: [],
  responseTypes: [],
  grantTypes: [],
  accessTokenType: 'opaque',
  idTokenUserinfoAssertion: false,
  devMode: false,
  apiAccess: false,
  ...NO_PROFILES,
};

/** What a kind of application stores beside its `applications` row, in the same transaction, and adds to its event. */
interface ApplicationParts {
  payload: JsonObject;
  insert(manager: EntityManager, appId: string, clientId: string): Promise<void>;
}

/**
 * The client id and secret an application had at the identity service it moves in from (docs/migrating.md): kept, so
 * the application signs in unchanged. The secret is stored as a hash like every other.
 */
export interface MovedInIdentity {
  clientId: string;
  clientSecret?: string;
}

interface CreatedApplication {
  appId: string;
  clientId: string;
  /** Present only for secret-based authentication methods; shown once. */
  clientSecret?: string;
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
    private readonly access: UserAccess,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'signingAlg' | 'outboundAllowPrivateNetworks' | 'publicUrl'>,
    private readonly lifetimes: AppTokenLifetimes,
  ) {}

  createProject(editorUserId: string | null, orgId: string, name: string): Promise<ProjectEntity> {
    return this.uow.run(async (manager) => {
      if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
      return this.insertProjectIn(manager, editorUserId, orgId, name);
    });
  }

  async createOidcApplication(
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    input: NewOidcApplication,
    tokens?: AppLifetimesPatch,
    identity?: MovedInIdentity,
  ): Promise<CreatedApplication> {
    validateOidcApplication(input, this.config.signingAlg);
    if (tokens) await this.lifetimes.check(tokens);
    await assertBackchannelLogoutTarget(input.backchannelLogoutUri, this.config.outboundAllowPrivateNetworks);
    await assertJwksUriTarget(input.jwksUri, { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks, publicUrl: this.config.publicUrl });
    return this.insertApplication(
      editorUserId,
      orgId,
      projectId,
      {
        kind: 'oidc',
        ...input,
        ...validEntry(input),
        jwks: storedJwks(input.jwks),
      },
      tokens && {
        payload: {},
        insert: (manager, appId, clientId) => this.lifetimes.setIn(manager, editorUserId, { id: appId, clientId, orgId, projectId }, tokens),
      },
      identity,
    );
  }

  /** An API application; with a resourceUri it is a resource clients may ask tokens for (docs/agents.md, "Resources"). */
  createApiApplication(editorUserId: string | null, orgId: string, projectId: string, input: NewApiApplication): Promise<CreatedApplication> {
    const resource = { resourceUri: input.resourceUri ?? null, scopes: input.scopes ?? [] };
    validateApiResource(resource);
    return this.insertApplication(editorUserId, orgId, projectId, {
      kind: 'api',
      ...NO_OIDC,
      name: input.name,
      authMethod: input.authMethod,
      accessTokenType: input.accessTokenType ?? 'opaque',
      access: validAccessMode(input.access ?? 'everyone'),
      resourceUri: resource.resourceUri,
      resourceScopes: resource.resourceUri === null ? null : resource.scopes,
      ssfReceiver: input.ssfReceiver ?? false,
    });
  }

  /**
   * A SAML application (docs/saml.md): an `applications` row of kind `saml` — its client id names the hidden client
   * its sign-ins run through, which authenticates with nothing and redirects nowhere of its own — and its SAML row.
   * An entity id another application of the organization has is a 409.
   */
  createSamlApplication(
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    input: SamlApplicationInput,
    entry: ApplicationEntry = {},
  ): Promise<CreatedApplication> {
    const access = validEntry(entry);
    const saml = samlApplicationFrom(input);
    return this.insertApplication(
      editorUserId,
      orgId,
      projectId,
      { kind: 'saml', ...NO_OIDC, ...access, name: saml.name },
      { payload: samlEventFields(saml), insert: (manager, appId) => insertSamlSettings(manager, appId, orgId, saml) },
    );
  }

  /** A key pair for `private_key_jwt`; only the public half is kept. */
  async addApplicationKey(
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    appId: string,
  ): Promise<{ keyId: string; clientId: string; privateKeyPem: string }> {
    // Refuse before spending a key generation on a request that fails; checked again when writing.
    await this.keyableApplication(this.uow.manager, orgId, projectId, appId);
    const { privateKeyPem, publicKeyPem } = await generateRsaKeyPair();
    const keyId = newId();
    const clientId = await this.uow.run(async (manager) => {
      const app = await this.keyableApplication(manager, orgId, projectId, appId);
      await manager.insert(PublicKeyEntity, {
        id: keyId,
        ownerType: 'application',
        ownerId: app.id,
        orgId,
        publicKey: publicKeyPem,
        expiresAt: null,
        createdAt: new Date(),
      });
      await this.events.push(manager, {
        type: 'project.application.key.added',
        aggregateType: 'project',
        aggregateId: projectId,
        resourceOwner: orgId,
        editorUserId,
        payload: { appId, keyId, keyType: 'RSA' },
      });
      return app.clientId;
    });
    return { keyId, clientId, privateKeyPem };
  }

  /**
   * The instance's own first-party application (apiAccess) with a fixed client id, and its project,
   * created by the service itself (no editor) in the caller's transaction; nothing when it exists.
   */
  async ensureFirstPartyApplicationIn(manager: EntityManager, orgId: string, projectName: string, clientId: string, input: NewOidcApplication): Promise<void> {
    const existing = await manager.findOneBy(ApplicationEntity, { clientId });
    if (existing) return this.addRedirectUrisIn(manager, existing, input);
    validateOidcApplication(input, this.config.signingAlg);
    const project = await this.insertProjectIn(manager, null, orgId, projectName);
    await this.insertApplicationIn(manager, null, orgId, project.id, { kind: 'oidc', ...input }, undefined, clientId);
  }

  /**
   * A first-party application keeps working where the instance is now reached (a changed `PUBLIC_URL`): the current
   * redirect URIs are added where missing, what an operator registered besides them stays.
   */
  private async addRedirectUrisIn(manager: EntityManager, app: ApplicationEntity, input: NewOidcApplication): Promise<void> {
    const merged = (registered: string[], wanted: string[]) => [...registered, ...wanted.filter((uri) => !registered.includes(uri))];
    const redirectUris = merged(app.redirectUris, input.redirectUris);
    const postLogoutRedirectUris = merged(app.postLogoutRedirectUris, input.postLogoutRedirectUris ?? []);
    if (redirectUris.length === app.redirectUris.length && postLogoutRedirectUris.length === app.postLogoutRedirectUris.length) return;
    await manager.update(ApplicationEntity, { id: app.id }, { redirectUris, postLogoutRedirectUris, changedAt: new Date() });
    await this.events.push(manager, {
      type: 'project.application.changed',
      aggregateType: 'application',
      aggregateId: app.id,
      resourceOwner: app.orgId,
      editorUserId: null,
      payload: { projectId: app.projectId, clientId: app.clientId, redirectUris, postLogoutRedirectUris },
    });
  }

  /** A project and its `project.added` event, inside the caller's transaction. */
  private async insertProjectIn(manager: EntityManager, editorUserId: string | null, orgId: string, name: string): Promise<ProjectEntity> {
    const now = new Date();
    const project = manager.create(ProjectEntity, { id: newId(), orgId, name, createdAt: now, changedAt: now });
    await manager.insert(ProjectEntity, project);
    await this.events.push(manager, {
      type: 'project.added',
      aggregateType: 'project',
      aggregateId: project.id,
      resourceOwner: orgId,
      editorUserId,
      payload: { name },
    });
    return project;
  }

  private async insertApplication(
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    input: NewOidcApplication & ResourceColumns & { kind: ApplicationEntity['kind'] },
    more?: ApplicationParts,
    identity?: MovedInIdentity,
  ): Promise<CreatedApplication> {
    const withSecret = input.authMethod === 'client_secret_basic' || input.authMethod === 'client_secret_post';
    const clientSecret = withSecret ? (identity?.clientSecret ?? generateSecret()) : undefined;
    try {
      return await this.uow.run(async (manager) => {
        // The project's row is taken by a write (guardProjectIn): a removal committed meanwhile, on this node or
        // through another, is seen here as 404, or rolls this unit back to be run again.
        await this.project(manager, orgId, projectId);
        if (!(await guardProjectIn(manager, orgId, projectId))) throw DomainError.notFound('project');
        return this.insertApplicationIn(manager, editorUserId, orgId, projectId, input, clientSecret, identity?.clientId ?? newId(), more);
      });
    } catch (error) {
      if (identity && isUniqueViolation(error)) throw DomainError.alreadyExists(`the client id ${identity.clientId} is taken by another application`);
      throw error;
    }
  }

  private async insertApplicationIn(
    manager: EntityManager,
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    input: NewOidcApplication & ResourceColumns & { kind: ApplicationEntity['kind'] },
    clientSecret: string | undefined,
    clientId = newId(),
    more?: ApplicationParts,
  ): Promise<CreatedApplication> {
    if (input.apiAccess) await this.assertMayGrantApiAccess(manager, editorUserId);
    if (input.ssfReceiver) await assertMaySetSsfReceiver(manager, this.access, editorUserId, orgId);
    const now = new Date();
    const app = manager.create(ApplicationEntity, {
      ...input,
      id: newId(),
      orgId,
      projectId,
      clientId,
      clientSecretHash: clientSecret === undefined ? null : this.hasher.hash(clientSecret),
      createdAt: now,
      changedAt: now,
    });
    try {
      await manager.insert(ApplicationEntity, app);
    } catch (error) {
      throw isUniqueViolation(error) && app.resourceUri ? resourceUriTaken(app.resourceUri) : error;
    }
    await more?.insert(manager, app.id, app.clientId);
    await this.events.push(manager, {
      type: 'project.application.added',
      aggregateType: 'project',
      aggregateId: projectId,
      resourceOwner: orgId,
      editorUserId,
      payload: {
        appId: app.id,
        clientId: app.clientId,
        name: app.name,
        kind: app.kind,
        authMethod: app.authMethod,
        redirectUris: app.redirectUris,
        postLogoutRedirectUris: app.postLogoutRedirectUris,
        responseTypes: app.responseTypes,
        grantTypes: app.grantTypes,
        accessTokenType: app.accessTokenType,
        devMode: app.devMode,
        apiAccess: app.apiAccess,
        ...(app.ssfReceiver ? { ssfReceiver: true } : {}),
        access: app.access ?? 'everyone',
        ...(app.kind === 'api' ? {} : { homeUrl: app.homeUrl ?? null }),
        ...(app.kind === 'oidc' ? profileFields(app) : {}),
        ...(app.resourceUri ? { resourceUri: app.resourceUri, scopes: (app.resourceScopes ?? []) as unknown as JsonObject[] } : {}),
        ...more?.payload,
      },
    });
    return { appId: app.id, clientId: app.clientId, ...(clientSecret === undefined ? {} : { clientSecret }) };
  }

  /**
   * An application gets no more than its owner (SECURITY.md): one whose users' tokens reach the
   * Portcullis API, and which signs in users of every organization, is registered by an IAM_OWNER only.
   */
  private async assertMayGrantApiAccess(manager: EntityManager, editorUserId: string | null): Promise<void> {
    if (editorUserId === null) return;
    const editor = (await this.access.rolesOf(manager, [editorUserId])).get(editorUserId) ?? noRoles();
    if (!isIamOwner(editor)) throw new DomainError(ErrorCode.PermissionDenied, 'only an IAM_OWNER may register an application with apiAccess');
  }

  private async project(manager: EntityManager, orgId: string, projectId: string): Promise<ProjectEntity> {
    const project = await manager.findOneBy(ProjectEntity, { id: projectId, orgId });
    if (!project) throw DomainError.notFound('project');
    return project;
  }

  private async keyableApplication(manager: EntityManager, orgId: string, projectId: string, appId: string): Promise<ApplicationEntity> {
    const app = await manager.findOneBy(ApplicationEntity, { id: appId, projectId, orgId });
    if (!app) throw DomainError.notFound('application');
    if (app.authMethod !== 'private_key_jwt') {
      throw new DomainError(ErrorCode.FailedPrecondition, 'keys can only be added to applications using private_key_jwt');
    }
    // Either its own key set or keys registered here, never both (docs/oauth-profiles.md, "Client keys").
    if (app.jwks !== null || app.jwksUri !== null) {
      throw new DomainError(
        ErrorCode.FailedPrecondition,
        'the application brings its own keys (jwks or jwksUri); set both to null before registering keys here',
      );
    }
    return app;
  }
}

/** The profiles' settings (docs/oauth-profiles.md) as events carry them: those that are on. */
function profileFields(app: NewOidcApplication): JsonObject {
  return Object.fromEntries(
    Object.entries(NO_PROFILES).flatMap(([field, off]) => {
      const value = app[field as keyof typeof NO_PROFILES];
      return value === off ? [] : [[field, value]];
    }),
  );
}

/** `access` (default `everyone`) and `homeUrl` (default none), each a 400 naming the field when malformed. */
export function validEntry(entry: ApplicationEntry): { access: ApplicationAccessMode; homeUrl: string | null } {
  return { access: validAccessMode(entry.access ?? 'everyone'), homeUrl: validHomeUrl(entry.homeUrl ?? null) };
}
