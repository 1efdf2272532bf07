import { X509Certificate } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { newWebhookSecret } from '../common/crypto/standard-webhooks.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { lastEventPosition } from '../common/events/event-log.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { assertPublicHost, assertReachableTarget } from '../common/net/configured-target.js';
import { organizationExists } from '../users/queries/organizations.js';
import { deleteStream, insertStream, streamOf, streamsOf, updateStreamSettings } from './audit-stream.queries.js';
import type { StreamRow } from './audit-stream.queries.js';
import { AuditStreamer } from './delivery/audit-streamer.js';
import { eventsPastCursor } from './delivery/stream-lag.js';
import { streamTargetOf } from './delivery/stream-url.js';
import type { StreamType } from './delivery/stream-url.js';
import { CHAIN_START } from './record/audit-chain.js';

/** Who a stream belongs to: the instance (`/admin/v1/audit-streams`) or one organization (its management API). */
export type StreamOwner = { kind: 'instance' } | { kind: 'org'; orgId: string };

export interface StreamInput {
  name: string;
  type: StreamType;
  url: string;
  caCertificate?: string;
  eventTypes?: string[];
  orgId?: string;
}

export type StreamChanges = Partial<Pick<StreamInput, 'name' | 'url' | 'caCertificate' | 'eventTypes'>>;

export type StreamState = 'active' | 'retrying' | 'failing';

export interface StreamView {
  id: string;
  name: string;
  type: StreamType;
  url: string;
  orgId: string | null;
  eventTypes: string[] | null;
  state: StreamState;
  lag: number;
  lastDeliveredSequence: number;
  /** Batches not taken since the last one that was: the back-off's place (docs/audit-and-signals.md, "Delivery"). */
  failedAttempts: number;
  /** When the batch not taken is sent again; only while retrying. */
  nextAttemptAt?: string;
  lastError?: string;
}

/** A stream that has failed this long is `failing` (docs/audit-and-signals.md, "Delivery"); it is still retried. */
const FAILING_AFTER_MS = 86_400_000;

/**
 * Audit streams (docs/audit-and-signals.md): created (an https stream's signing secret shown once, kept encrypted),
 * listed, changed and removed, each change with its event. Delivery is the streamer's (delivery/audit-streamer.ts).
 */
@Injectable()
export class AuditStreamsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly streamer: AuditStreamer,
    orgResources: OrgResources,
  ) {
    // An organization's own streams go with it, as its webhooks do; the instance's streams filtered to it stay.
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const { id } of await streamsOf(manager, orgId)) {
      if (await deleteStream(manager, orgId, id)) await this.pushEvent(manager, 'audit.stream.removed', id, orgId, editorUserId);
    }
  }

  async create(editorUserId: string | null, owner: StreamOwner, input: StreamInput): Promise<{ id: string; secret?: string }> {
    const orgId = await this.filterOrg(owner, input.orgId);
    const caCertificate = caCertificateOf(input.caCertificate);
    await this.checkTarget(input.type, input.url);
    const secret = input.type === 'https' ? newWebhookSecret() : undefined;
    const id = newId();
    const resourceOwner = ownerKey(owner);
    const eventTypes = input.eventTypes?.length ? [...input.eventTypes] : null;
    await this.uow.run(async (manager) => {
      // The stream records the events after the newest one now: its own `audit.stream.added` is its first record.
      const row: StreamRow = {
        id,
        owner: resourceOwner,
        orgId,
        name: input.name,
        type: input.type,
        url: input.url,
        caCertificate,
        eventTypes,
        secret: secret === undefined ? null : this.encryptor.encrypt(secret),
        cursor: await lastEventPosition(manager),
        lastSequence: 0,
        lastChain: CHAIN_START,
        failures: 0,
        failingSince: null,
        nextAttemptAt: 0,
        lastError: null,
        deliveredAt: null,
        createdAt: Date.now(),
      };
      await insertStream(manager, row);
      await this.pushEvent(manager, 'audit.stream.added', id, resourceOwner, editorUserId, {
        name: input.name,
        type: input.type,
        url: withoutQuery(input.url),
        eventTypes,
        orgId,
      });
    });
    return secret === undefined ? { id } : { id, secret };
  }

  async list(owner: StreamOwner): Promise<StreamView[]> {
    const rows = await streamsOf(this.uow.manager, ownerKey(owner));
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async get(owner: StreamOwner, id: string): Promise<StreamView> {
    return this.view(await this.found(owner, id));
  }

  async update(editorUserId: string | null, owner: StreamOwner, id: string, changes: StreamChanges): Promise<StreamView> {
    const current = await this.found(owner, id);
    const next = {
      name: changes.name ?? current.name,
      url: changes.url ?? current.url,
      caCertificate: changes.caCertificate === undefined ? current.caCertificate : caCertificateOf(changes.caCertificate),
      eventTypes: changes.eventTypes === undefined ? current.eventTypes : changes.eventTypes.length ? [...changes.eventTypes] : null,
    };
    if (changes.url !== undefined) await this.checkTarget(current.type, next.url);
    await this.uow.run(async (manager) => {
      if (!(await streamOf(manager, ownerKey(owner), id))) throw DomainError.notFound('audit stream');
      await updateStreamSettings(manager, id, next);
      await this.pushEvent(manager, 'audit.stream.changed', id, ownerKey(owner), editorUserId, {
        changed: Object.keys(changes),
        name: next.name,
        url: withoutQuery(next.url),
        eventTypes: next.eventTypes,
      });
    });
    return this.get(owner, id);
  }

  async remove(editorUserId: string | null, owner: StreamOwner, id: string): Promise<void> {
    await this.uow.run(async (manager) => {
      if (!(await deleteStream(manager, ownerKey(owner), id))) throw DomainError.notFound('audit stream');
      await this.pushEvent(manager, 'audit.stream.removed', id, ownerKey(owner), editorUserId);
    });
    await this.streamer.removed(id);
  }

  private async found(owner: StreamOwner, id: string): Promise<StreamRow> {
    const row = await streamOf(this.uow.manager, ownerKey(owner), id);
    if (!row) throw DomainError.notFound('audit stream');
    return row;
  }

  private async view(row: StreamRow): Promise<StreamView> {
    const now = Date.now();
    const state: StreamState = row.failingSince === null ? 'active' : now - row.failingSince >= FAILING_AFTER_MS ? 'failing' : 'retrying';
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      url: row.url,
      orgId: row.orgId,
      eventTypes: row.eventTypes,
      state,
      lag: await eventsPastCursor(this.uow.manager, row),
      lastDeliveredSequence: row.lastSequence,
      failedAttempts: row.failures,
      ...(row.failures > 0 && row.nextAttemptAt > 0 ? { nextAttemptAt: new Date(row.nextAttemptAt).toISOString() } : {}),
      ...(row.lastError ? { lastError: row.lastError } : {}),
    };
  }

  private pushEvent(
    manager: EntityManager,
    type: 'audit.stream.added' | 'audit.stream.changed' | 'audit.stream.removed',
    id: string,
    resourceOwner: string,
    editorUserId: string | null,
    payload?: Record<string, string | string[] | null>,
  ): Promise<void> {
    return this.events.push(manager, { type, aggregateType: 'audit_stream', aggregateId: id, resourceOwner, editorUserId, ...(payload ? { payload } : {}) });
  }

  /** The organization whose events the stream sees: an organization's own stream sees only its own. */
  private async filterOrg(owner: StreamOwner, orgId: string | undefined): Promise<string | null> {
    if (owner.kind === 'org') {
      if (orgId !== undefined && orgId !== owner.orgId) throw DomainError.invalidField('orgId', "orgId must be this organization's id (or absent)");
      return owner.orgId;
    }
    if (orgId === undefined) return null;
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    return orgId;
  }

  /**
   * Where a stream may send (docs/product-rules.md, "Outbound calls"): https streams as webhooks, syslog over TLS to
   * public hosts only unless private networks are allowed; plain `syslog+tcp://` only to loopback (stream-url.ts).
   * Every connection checks the address again when it is made.
   */
  private async checkTarget(type: StreamType, url: string): Promise<void> {
    const target = streamTargetOf(type, url);
    if (typeof target === 'string') throw DomainError.invalidField('url', target);
    const rules = { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks };
    if (target.kind === 'https') await assertReachableTarget(target.url, 'url', rules);
    else if (target.kind === 'syslog+tls') await assertPublicHost(new URL(url), 'url', rules);
  }
}

export function ownerKey(owner: StreamOwner): string {
  return owner.kind === 'instance' ? 'instance' : owner.orgId;
}

/** A PEM certificate (or several) the receiver's chain must end in; a 400 naming `caCertificate` when it is none. */
function caCertificateOf(pem: string | undefined): string | null {
  if (pem === undefined || pem.trim() === '') return null;
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  try {
    if (!blocks) throw new Error('no certificate');
    for (const block of blocks) new X509Certificate(block);
  } catch {
    throw DomainError.invalidField('caCertificate', 'caCertificate must be one or more PEM certificates');
  }
  return blocks.join('\n');
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  return parsed.toString();
}
