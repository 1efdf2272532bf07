import { nameContains } from '../../common/database/name-search.js';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CLIENT_REGISTRATIONS } from '../../common/auth/client-registrations.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { SecretHasher, generateSecret } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ErrorDetail } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import type { JsonObject } from '../../common/database/columns.js';
import { UserAccess } from '../acting/user-access.service.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { PublicKeyEntity } from '../entities/public-key.entity.js';
import { validateOidcApplication } from '../oidc-application.rules.js';
import { resourceUriTaken, validateApiResource } from '../api-resource.rules.js';
import type { ApiResourceSettings } from '../api-resource.rules.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { assertBackchannelLogoutTarget } from '../backchannel-logout-target.js';
import { assertJwksUriTarget, storedJwks } from '../client-keys.rules.js';
import type { NewOidcApplication } from '../projects.service.js';
import { applicationIn, assertMayManage, assertMaySetSsfReceiver, usesSecret } from './application-access.js';
import type { Page, Paged } from '../../common/database/page.js';
import { projectIn } from './project-edits.service.js';
import { SAML_FIELDS, samlEventFields, samlSettingsOf, updateSamlSettings } from './saml-settings.js';
import type { SamlSettings } from './saml-settings.js';
import { SamlApplicationEntity } from '../entities/saml-application.entity.js';
import { validAccessMode, validHomeUrl } from '../project-access/project-access.rules.js';
import { validSamlApplication } from '../saml-application.rules.js';
import type { NewSamlApplication } from '../saml-application.rules.js';
import { AppTokenLifetimes } from '../../settings/app-token-lifetimes.service.js';
import type { AppLifetimesPatch } from '../../settings/app-token-lifetimes.service.js';

/** A partial change of an application: any field of its create request. */
export type ApplicationChanges = Partial<NewOidcApplication> & Partial<SamlSettings> & Partial<ApiResourceSettings>;
type EntryField = 'access' | 'homeUrl';
const ENTRY_FIELDS: readonly EntryField[] = ['access', 'homeUrl'];

type Field = keyof NewOidcApplication;
const FIELDS: Field[] = [
  'name',
  'redirectUris',
  'postLogoutRedirectUris',
  'responseTypes',
  'grantTypes',
  'authMethod',
  'accessTokenType',
  'idTokenUserinfoAssertion',
  'devMode',
  'apiAccess',
  'ssfReceiver',
  'requirePushedAuthorizationRequests',
  'requireSignedRequestObject',
  'requestObjectRequiresExp',
  'authorizationSignedResponseAlg',
  'dpopBoundAccessTokens',
  'backchannelLogoutUri',
  'backchannelLogoutSessionRequired',
  'jwks',
  'jwksUri',
  'subjectType',
];
/**
 * An API application takes a name, an authentication method, its resource settings and who may use its resource
 * (docs/product-rules.md, "Application access"); nothing else applies to it, a link (`homeUrl`) included.
 */
const API_FIELDS = new Set<string>(['name', 'authMethod', 'accessTokenType', 'resourceUri', 'scopes', 'access', 'ssfReceiver']);
/** The resource settings (docs/agents.md, "Resources"): API applications only. */
const RESOURCE_FIELDS = ['resourceUri', 'scopes'] as const;
const API_AUTH_METHODS = new Set(['client_secret_basic', 'private_key_jwt']);

/**
 * Reading, changing and removing applications (docs/product-rules.md, "Changing and removing resources").
 * A change is validated exactly like a create, on the application as it would be after the change. Each
 * change is forgotten by this process's client cache once committed; other processes see it within
 * CLIENT_CACHE_MS (src/oidc/adapter/client.store.ts).
 */
@Injectable()
export class ApplicationEditsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
    private readonly access: UserAccess,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'signingAlg' | 'outboundAllowPrivateNetworks' | 'publicUrl'>,
    private readonly lifetimes: AppTokenLifetimes,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {}

  /** A page of the project's applications, oldest first; with `query`, those whose name contains it. */
  async list(orgId: string, projectId: string, page: Page, query?: string): Promise<Paged<ApplicationEntity>> {
    const manager = this.uow.manager;
    await projectIn(manager, orgId, projectId);
    const [items, total] = await manager.findAndCount(ApplicationEntity, {
      where: query ? { orgId, projectId, name: nameContains(manager, query) } : { orgId, projectId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { items, total };
  }

  get(orgId: string, projectId: string, appId: string): Promise<ApplicationEntity> {
    return applicationIn(this.uow.manager, orgId, projectId, appId);
  }

  /** The SAML rows of those of `apps` that are SAML applications, by application id. */
  samlSettings(apps: ApplicationEntity[]): Promise<Map<string, SamlApplicationEntity>> {
    return samlSettingsOf(
      this.uow.manager,
      apps.filter((app) => app.kind === 'saml').map((app) => app.id),
    );
  }

  /**
   * Applies the given fields. Switching to a secret-based authentication method gives an application
   * without a secret a new one, returned once; switching away from one drops the stored hash.
   */
  async change(
    editorUserId: string | null,
    orgId: string,
    projectId: string,
    appId: string,
    changes: ApplicationChanges,
    tokens?: AppLifetimesPatch,
  ): Promise<{ app: ApplicationEntity; clientSecret?: string }> {
    // Resolved before the transaction (a name lookup may take a while); an unchanged URI is looked up again too.
    await assertBackchannelLogoutTarget(changes.backchannelLogoutUri, this.config.outboundAllowPrivateNetworks);
    await assertJwksUriTarget(changes.jwksUri, { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks, publicUrl: this.config.publicUrl });
    const { access, homeUrl, ...kindChanges } = changes;
    const entry = validEntryChanges({ access, homeUrl });
    const result = await this.uow.run(async (manager) => {
      const app = await applicationIn(manager, orgId, projectId, appId);
      await assertMayManage(manager, this.access, editorUserId, app.apiAccess || changes.apiAccess === true);
      if (changes.ssfReceiver !== undefined && changes.ssfReceiver !== Boolean(app.ssfReceiver)) {
        await assertMaySetSsfReceiver(manager, this.access, editorUserId, app.orgId);
      }
      if (app.kind === 'api') checkApiChanges(changes);
      const changed = await this.changeKind(manager, editorUserId, app, kindChanges);
      await this.changeEntry(manager, editorUserId, changed.app, entry);
      // Token lifetimes of the application's own (docs/operations.md, "Settings").
      if (tokens) await this.lifetimes.setIn(manager, editorUserId, changed.app, tokens);
      return changed;
    });
    this.clients?.forget(result.app.clientId);
    return result;
  }

  /**
   * Who may enter an application (or, for an API application, use its resource) and its link (docs/product-rules.md,
   * "Application access"): its own event, so a door's reader sees exactly when admission changed.
   */
  private async changeEntry(
    manager: EntityManager,
    editorUserId: string | null,
    app: ApplicationEntity,
    entry: Partial<Pick<ApplicationEntity, EntryField>>,
  ): Promise<void> {
    const changed = ENTRY_FIELDS.filter((field) => entry[field] !== undefined && entry[field] !== app[field]);
    if (changed.length === 0) return;
    const update = { ...Object.fromEntries(changed.map((field) => [field, entry[field]])), changedAt: new Date() };
    await manager.update(ApplicationEntity, { id: app.id }, update);
    Object.assign(app, update);
    await applicationChanged(manager, this.events, editorUserId, app, Object.fromEntries(changed.map((field) => [field, app[field]])));
  }

  private async changeKind(
    manager: EntityManager,
    editorUserId: string | null,
    app: ApplicationEntity,
    changes: ApplicationChanges,
  ): Promise<{ app: ApplicationEntity; clientSecret?: string }> {
    if (app.kind === 'saml') return { app: await this.changeSaml(manager, editorUserId, app, changes) };
    checkNoSamlChanges(changes);
    const { resourceUri: _uri, scopes: _scopes, ...oidcChanges } = definedOnly(changes);
    const next = { ...pick(app), ...oidcChanges };
    if (app.kind !== 'api') {
      checkNoResourceChanges(changes);
      validateOidcApplication(next, this.config.signingAlg);
    }
    const resource = app.kind === 'api' ? resourceChanges(app, changes) : {};
    next.jwks = storedJwks(next.jwks);
    await assertNoRegisteredKeys(manager, app, next);
    const changed = FIELDS.filter((field) => JSON.stringify(next[field]) !== JSON.stringify(app[field]));
    let clientSecret: string | undefined;
    let clientSecretHash = app.clientSecretHash;
    if (!usesSecret(next.authMethod)) clientSecretHash = null;
    else if (!clientSecretHash) clientSecretHash = this.hasher.hash((clientSecret = generateSecret()));
    if (changed.length === 0 && Object.keys(resource).length === 0 && clientSecretHash === app.clientSecretHash) return { app };
    const update = { ...Object.fromEntries(changed.map((field) => [field, next[field]])), ...resource, clientSecretHash, changedAt: new Date() };
    try {
      await manager.update(ApplicationEntity, { id: app.id }, update);
    } catch (error) {
      throw isUniqueViolation(error) && resource.resourceUri ? resourceUriTaken(resource.resourceUri) : error;
    }
    await applicationChanged(manager, this.events, editorUserId, app, {
      ...Object.fromEntries(changed.map((field) => [field, next[field]])),
      ...resourceEventFields(resource),
    });
    return { app: Object.assign(app, update), clientSecret };
  }

  /**
   * A SAML application takes its name and its SAML fields (docs/saml.md), validated on the application as it would be
   * after the change; an OIDC field is a 400.
   */
  private async changeSaml(
    manager: EntityManager,
    editorUserId: string | null,
    app: ApplicationEntity,
    changes: ApplicationChanges,
  ): Promise<ApplicationEntity> {
    const given = definedOnly(changes);
    const foreign = Object.keys(given).filter((field) => field !== 'name' && !(SAML_FIELDS as readonly string[]).includes(field));
    if (foreign.length > 0)
      throw DomainError.invalid(
        'the application configuration is invalid',
        foreign.map((field) => ({ field, message: `${field} does not apply to a SAML application` })),
      );
    const current = (await samlSettingsOf(manager, [app.id])).get(app.id)!;
    const before: NewSamlApplication = { name: app.name, ...Object.fromEntries(SAML_FIELDS.map((field) => [field, current[field]])) } as NewSamlApplication;
    const after = validSamlApplication({ ...before, ...(given as Partial<NewSamlApplication>) });
    const changed = (['name', ...SAML_FIELDS] as const).filter((field) => JSON.stringify(after[field]) !== JSON.stringify(before[field]));
    if (changed.length === 0) return app;
    const changedAt = new Date();
    await manager.update(ApplicationEntity, { id: app.id }, { name: after.name, changedAt });
    await updateSamlSettings(manager, app.id, Object.fromEntries(changed.filter((f) => f !== 'name').map((field) => [field, after[field]])));
    await applicationChanged(manager, this.events, editorUserId, app, {
      ...samlEventFields(Object.fromEntries(changed.map((field) => [field, after[field]]))),
      ...(changed.includes('name') ? { name: after.name } : {}),
    });
    return Object.assign(app, { name: after.name, changedAt });
  }

  /** Removes the application with its keys, and revokes everything issued to it (grants, codes, tokens). */
  async remove(editorUserId: string | null, orgId: string, projectId: string, appId: string): Promise<void> {
    const found = await this.uow.run(async (manager) => {
      const app = await applicationIn(manager, orgId, projectId, appId);
      await assertMayManage(manager, this.access, editorUserId, app.apiAccess);
      return app;
    });
    await this.revokeIssuedInBatches(found.clientId);
    const app = await this.uow.run(async (manager) => {
      const app = await applicationIn(manager, orgId, projectId, appId);
      await assertMayManage(manager, this.access, editorUserId, app.apiAccess);
      await this.removeIn(manager, editorUserId, app);
      return app;
    });
    this.clients?.forget(app.clientId);
  }

  /** The removal inside the caller's transaction (also used when an organization goes); the caller forgets the client after commit. */
  async removeIn(manager: EntityManager, editorUserId: string | null, app: ApplicationEntity): Promise<void> {
    await manager.delete(PublicKeyEntity, { ownerType: 'application', ownerId: app.id });
    await manager.delete(ApplicationEntity, { id: app.id });
    await this.lifetimes.removeIn(manager, app.id);
    await this.clients?.revokeIssuedTo(manager, app.clientId);
    // The event last: pushing takes the event-position lock until commit (event-positions.ts).
    await this.events.push(manager, {
      type: 'project.application.removed',
      aggregateType: 'application',
      aggregateId: app.id,
      resourceOwner: app.orgId,
      editorUserId,
      payload: { projectId: app.projectId, clientId: app.clientId, name: app.name },
    });
  }

  /** Before the removal's transaction: what was issued to the client, in bounded transactions (ClientRegistrations). */
  async revokeIssuedInBatches(clientId: string): Promise<void> {
    await this.clients?.revokeIssuedInBatches(clientId);
  }

  forget(clientIds: string[]): void {
    for (const clientId of clientIds) this.clients?.forget(clientId);
  }
}

/** An application verifies with either its own key set or keys registered through `…/keys` (docs/oauth-profiles.md, "Client keys"). */
async function assertNoRegisteredKeys(manager: EntityManager, app: ApplicationEntity, next: NewOidcApplication): Promise<void> {
  const field = next.jwks !== null ? 'jwks' : next.jwksUri !== null ? 'jwksUri' : undefined;
  if (!field || !(await manager.existsBy(PublicKeyEntity, { ownerType: 'application', ownerId: app.id }))) return;
  throw DomainError.invalidField(
    field,
    `${field}: the application has keys registered through its keys endpoint; remove them first (an application uses one kind of keys)`,
  );
}

function pick(app: ApplicationEntity): NewOidcApplication {
  return Object.fromEntries(FIELDS.map((field) => [field, app[field]])) as unknown as NewOidcApplication;
}

function definedOnly(changes: ApplicationChanges): ApplicationChanges {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/** SAML fields apply to SAML applications only. */
function checkNoSamlChanges(changes: ApplicationChanges): void {
  const given = SAML_FIELDS.filter((field) => changes[field] !== undefined);
  if (given.length > 0)
    throw DomainError.invalid(
      'the application configuration is invalid',
      given.map((field) => ({ field, message: `${field} applies to SAML applications only` })),
    );
}

/** An API application takes only its create fields (name, authMethod of client_secret_basic or private_key_jwt, the resource settings). */
function checkApiChanges(changes: ApplicationChanges): void {
  const problems: ErrorDetail[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (!API_FIELDS.has(field)) problems.push({ field, message: `${field} does not apply to an API application` });
  }
  if (changes.authMethod !== undefined && !API_AUTH_METHODS.has(changes.authMethod)) {
    problems.push({ field: 'authMethod', message: 'an API application authenticates with client_secret_basic or private_key_jwt' });
  }
  if (problems.length > 0) throw DomainError.invalid('the application configuration is invalid', problems);
}

/** Resource settings apply to API applications only (docs/agents.md, "Resources"). */
function checkNoResourceChanges(changes: ApplicationChanges): void {
  const given = RESOURCE_FIELDS.filter((field) => changes[field] !== undefined);
  if (given.length > 0)
    throw DomainError.invalid(
      'the application configuration is invalid',
      given.map((field) => ({ field, message: `${field} applies to API applications only` })),
    );
}

/**
 * The resource columns a change of an API application sets, validated on the application as it would be after it:
 * only those that differ. Removing the resource URI removes its scopes.
 */
function resourceChanges(app: ApplicationEntity, changes: ApplicationChanges): Partial<Pick<ApplicationEntity, 'resourceUri' | 'resourceScopes'>> {
  const resourceUri = changes.resourceUri !== undefined ? changes.resourceUri : app.resourceUri;
  const scopes = resourceUri === null ? (changes.scopes ?? []) : (changes.scopes ?? app.resourceScopes ?? []);
  validateApiResource({ resourceUri, scopes });
  const resourceScopes = resourceUri === null ? null : scopes.map(({ name, description }) => ({ name, description }));
  return {
    ...(resourceUri !== app.resourceUri ? { resourceUri } : {}),
    ...(JSON.stringify(resourceScopes) !== JSON.stringify(app.resourceScopes) ? { resourceScopes } : {}),
  };
}

/** What a change event says of the resource settings, under their API names. */
function resourceEventFields(resource: Partial<Pick<ApplicationEntity, 'resourceUri' | 'resourceScopes'>>): JsonObject {
  return {
    ...(resource.resourceUri !== undefined ? { resourceUri: resource.resourceUri } : {}),
    ...(resource.resourceScopes !== undefined ? { scopes: (resource.resourceScopes ?? []) as unknown as JsonObject[] } : {}),
  };
}

/** The given `access` and `homeUrl` checked like at creation; `homeUrl: null` removes the link. */
function validEntryChanges(entry: { access?: unknown; homeUrl?: unknown }): Partial<Pick<ApplicationEntity, EntryField>> {
  return {
    ...(entry.access !== undefined ? { access: validAccessMode(entry.access) } : {}),
    ...(entry.homeUrl !== undefined ? { homeUrl: validHomeUrl(entry.homeUrl) } : {}),
  };
}

/** One `project.application.changed` event: the application's project and client id, then what changed (stored values, JSON). */
function applicationChanged(
  manager: EntityManager,
  events: EventStore,
  editorUserId: string | null,
  app: ApplicationEntity,
  changes: Record<string, unknown>,
): Promise<void> {
  return events.push(manager, {
    type: 'project.application.changed',
    aggregateType: 'application',
    aggregateId: app.id,
    resourceOwner: app.orgId,
    editorUserId,
    payload: { projectId: app.projectId, clientId: app.clientId, ...changes },
  });
}
