import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { eventsAfter } from '../common/events/event-log.js';
import { EventStore } from '../common/events/event-store.js';
import type { JsonObject } from '../common/database/columns.js';
import { newId } from '../common/ids.js';
import { findGroup } from '../users/groups/group.queries.js';
import { organizationExists } from '../users/queries/organizations.js';
import { DataSource } from 'typeorm';
import { requestTimeoutOf } from './provisioning-settings.js';
import type { ObjectStatus, TargetSettings, TargetState } from './provisioning-settings.js';
import { deleteTarget, insertTarget, objectCounts, objectsOf, targetsOf, updateTarget } from './provisioning.queries.js';
import type { ObjectRow, TargetRow } from './provisioning.queries.js';
import { endpointOf, scimFetch, testConnection } from './scim-client.js';
import type { TargetFeatures } from './scim-client.js';
import { assertSecretResent, checkTargetUrl, settingsOf } from './target-input.js';
import { assertRolesProject, rolesSourceChanged } from './roles-source.js';
import type { TargetInput } from './target-input.js';

/** A target as reads show it: never its secret. */
export interface TargetView extends TargetSettings {
  rolesFrom: string | null;
  requestTimeoutMs: number;
  id: string;
  name: string;
  baseUrl: string;
  enabled: boolean;
  createdAt: string;
  changedAt: string;
}

export interface TargetStatus {
  state: TargetState;
  sequence: string;
  lag: number;
  objects: Record<ObjectStatus, number>;
  lastSuccessAt: string | null;
  lastError?: string;
}

/**
 * An organization's outbound SCIM targets (docs/provisioning.md): created, read, changed and removed by
 * its ORG_OWNER, each change with its event in the same transaction (never the secret, which is kept encrypted);
 * tested; their status and objects read.
 */
@Injectable()
export class ProvisioningTargetsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    orgResources: OrgResources,
  ) {
    // An organization's targets go with it (the remote objects stay, as when a target is removed).
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
  }

  async create(editorUserId: string | null, orgId: string, input: TargetInput): Promise<{ id: string }> {
    await this.assertOrg(orgId);
    const { settings, secret } = settingsOf(input, undefined);
    await this.checkUrls(input.baseUrl!, settings);
    const now = Date.now();
    const id = newId();
    await this.uow.run(async (manager) => {
      await this.assertGroups(manager, orgId, settings.scope.groupIds);
      await assertRolesProject(manager, orgId, settings.rolesFrom);
      // The target starts at the beginning of the organization's log: every person the log ever named is marked once
      // (coalesced) and pushed as it is now — its first sync; people removed before it are nothing to push.
      const row: TargetRow = {
        id,
        orgId,
        name: input.name!.trim(),
        baseUrl: input.baseUrl!,
        settings,
        secret: this.encryptor.encrypt(secret!),
        enabled: input.enabled ?? true,
        state: 'active',
        cursor: 0,
        nextAttemptAt: 0,
        lastSuccessAt: null,
        lastError: null,
        createdAt: now,
        changedAt: now,
      };
      await insertTarget(manager, row);
      await this.events.push(manager, {
        type: 'provisioning.target.added',
        aggregateType: 'provisioning_target',
        aggregateId: id,
        resourceOwner: orgId,
        editorUserId,
        payload: payloadOf(row),
      });
    });
    return { id };
  }

  async list(orgId: string): Promise<TargetView[]> {
    await this.assertOrg(orgId);
    return (await targetsOf(this.uow.manager, orgId)).map(viewOf);
  }

  async get(orgId: string, id: string): Promise<TargetView> {
    return viewOf(await this.find(this.uow.manager, orgId, id));
  }

  async change(editorUserId: string | null, orgId: string, id: string, input: TargetInput): Promise<TargetView> {
    const before = await this.find(this.uow.manager, orgId, id);
    const { settings, secret } = settingsOf(input, before.settings);
    const baseUrl = input.baseUrl ?? before.baseUrl;
    if (input.baseUrl !== undefined || input.auth !== undefined) await this.checkUrls(baseUrl, settings);
    assertSecretResent(before, { baseUrl, settings }, secret);
    const row: TargetRow = {
      ...before,
      name: input.name?.trim() ?? before.name,
      baseUrl,
      settings,
      secret: secret === undefined ? before.secret : this.encryptor.encrypt(secret),
      enabled: input.enabled ?? before.enabled,
      // A new scope (or choice of groups) re-reads the log from its beginning: people and groups now in it are
      // pushed, those now out of it removed.
      cursor:
        JSON.stringify(settings.scope) === JSON.stringify(before.settings.scope) &&
        settings.pushGroups === before.settings.pushGroups &&
        !rolesSourceChanged(before.settings, settings)
          ? before.cursor
          : 0,
      state: 'active',
      nextAttemptAt: 0,
      changedAt: Math.max(Date.now(), before.changedAt + 1),
    };
    await this.uow.run(async (manager) => {
      await this.find(manager, orgId, id);
      await this.assertGroups(manager, orgId, settings.scope.groupIds);
      await assertRolesProject(manager, orgId, settings.rolesFrom);
      await updateTarget(manager, row);
      const payload = { ...payloadOf(row), ...(secret !== undefined ? { secretChanged: true } : {}) };
      await this.events.push(manager, {
        type: 'provisioning.target.changed',
        aggregateType: 'provisioning_target',
        aggregateId: id,
        resourceOwner: orgId,
        editorUserId,
        payload,
      });
    });
    return viewOf(row);
  }

  /** Removes the target and what it knows of its objects; the remote objects stay (docs/provisioning.md, "Targets"). */
  async remove(editorUserId: string | null, orgId: string, id: string): Promise<void> {
    await this.assertOrg(orgId);
    await this.uow.run(async (manager) => {
      if (!(await deleteTarget(manager, orgId, id))) throw DomainError.notFound('provisioning target');
      await this.events.push(manager, {
        type: 'provisioning.target.removed',
        aggregateType: 'provisioning_target',
        aggregateId: id,
        resourceOwner: orgId,
        editorUserId,
      });
    });
  }

  /** Authenticates to the target and reads its `ServiceProviderConfig`; changes nothing. */
  async test(orgId: string, id: string): Promise<{ ok: boolean; error?: string } & TargetFeatures> {
    const target = await this.find(this.uow.manager, orgId, id);
    const endpoint = endpointOf(target, (sealed) => this.encryptor.decrypt(sealed));
    return testConnection(endpoint, scimFetch(this.config.outboundAllowPrivateNetworks, requestTimeoutOf(target.settings)));
  }

  async status(orgId: string, id: string): Promise<TargetStatus> {
    const target = await this.find(this.uow.manager, orgId, id);
    const state: TargetState = !target.enabled
      ? 'disabled'
      : target.state === 'auth_failed'
        ? 'auth_failed'
        : target.nextAttemptAt > Date.now()
          ? 'paused'
          : 'active';
    return {
      state,
      sequence: String(target.cursor),
      lag: await eventsAfter(this.uow.manager, target.cursor, orgId),
      objects: await objectCounts(this.uow.manager, id),
      lastSuccessAt: target.lastSuccessAt === null ? null : new Date(target.lastSuccessAt).toISOString(),
      ...(target.lastError !== null ? { lastError: target.lastError } : {}),
    };
  }

  async objects(orgId: string, id: string, status: ObjectStatus | undefined, limit = 100, offset = 0): Promise<{ objects: ObjectRow[]; total: number }> {
    await this.find(this.uow.manager, orgId, id);
    return objectsOf(this.uow.manager, id, status, limit, offset);
  }

  private async find(manager: EntityManager, orgId: string, id: string): Promise<TargetRow> {
    await this.assertOrg(orgId);
    const [row] = await targetsOf(manager, orgId, id);
    if (!row) throw DomainError.notFound('provisioning target');
    return row;
  }

  private async assertOrg(orgId: string): Promise<void> {
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
  }

  /** Every chosen group must be one of the organization's (a 400 naming the unknown ones). */
  private async assertGroups(manager: EntityManager, orgId: string, groupIds: readonly string[]): Promise<void> {
    const unknown: string[] = [];
    for (const groupId of groupIds) if (!(await findGroup(manager, orgId, groupId))) unknown.push(groupId);
    if (unknown.length > 0)
      throw DomainError.invalidField('scope.groupIds', `scope.groupIds names groups the organization does not have: ${unknown.join(', ')}`);
  }

  private async checkUrls(baseUrl: string, settings: TargetSettings): Promise<void> {
    const rules = { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks, port: this.config.port, publicUrl: this.config.publicUrl };
    await checkTargetUrl(baseUrl, 'baseUrl', rules);
    if (settings.auth.type === 'oauth_client_credentials') await checkTargetUrl(settings.auth.tokenUrl, 'auth.tokenUrl', rules);
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const { id } of await targetsOf(manager, orgId)) {
      if (await deleteTarget(manager, orgId, id)) {
        await this.events.push(manager, {
          type: 'provisioning.target.removed',
          aggregateType: 'provisioning_target',
          aggregateId: id,
          resourceOwner: orgId,
          editorUserId,
        });
      }
    }
  }
}

function viewOf(row: TargetRow): TargetView {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.baseUrl,
    ...row.settings,
    rolesFrom: row.settings.rolesFrom ?? null,
    requestTimeoutMs: requestTimeoutOf(row.settings),
    enabled: row.enabled,
    createdAt: new Date(row.createdAt).toISOString(),
    changedAt: new Date(row.changedAt).toISOString(),
  };
}

/** What an event tells of a target: its settings, never its secret. */
function payloadOf(row: TargetRow): JsonObject {
  return JSON.parse(
    JSON.stringify({ name: row.name, baseUrl: row.baseUrl, ...row.settings, requestTimeoutMs: requestTimeoutOf(row.settings), enabled: row.enabled }),
  ) as JsonObject;
}
