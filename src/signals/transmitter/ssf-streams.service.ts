import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { lastEventPosition } from '../../common/events/event-log.js';
import { EventStore } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import type { EntityManager } from 'typeorm';
import { newId } from '../../common/ids.js';
import { absoluteUrlProblem } from '../../common/net/configured-target.js';
import { EVENTS_SUPPORTED } from '../event-uris.js';
import type { Receiver } from './receiver-auth.js';
import { SignalsTransmitter } from './signals-transmitter.js';
import { deleteStream, dropSets, insertStream, owedSets, streamById, streamsOfClient, updateStreamConfig, updateStreamStatus } from './stream.queries.js';
import type { DeliveryMethod, SsfStreamRow, StreamStatus } from './stream.queries.js';

/** SSF 1.0 §6.1.1: the delivery methods, named by their RFCs. */
export const PUSH_METHOD = 'urn:ietf:rfc:8935';
export const POLL_METHOD = 'urn:ietf:rfc:8936';
/** How many streams one receiver may hold. */
const STREAMS_PER_RECEIVER = 10;
/** RFC 8936 §2.1: `maxEvents`, at most. */
const POLL_MAX = 100;

export interface StreamInput {
  delivery?: { method?: string; endpoint_url?: string; authorization_header?: string };
  events_requested?: string[];
  description?: string;
}

/** A stream's configuration as SSF 1.0 §8.1.1 names it. */
export interface StreamConfiguration {
  stream_id: string;
  iss: string;
  aud: string;
  events_supported: string[];
  events_requested: string[];
  events_delivered: string[];
  delivery: { method: string; endpoint_url: string };
  description?: string;
}

/**
 * Stream management of the transmitter (SSF 1.0 §8.1): a receiver creates, reads, replaces, updates and deletes its
 * own streams, reads and sets their status, asks for a verification event, and polls (RFC 8936). A new stream starts
 * at the end of the event log: it carries what happens from its creation on.
 */
@Injectable()
export class SsfStreamsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly encryptor: Encryptor,
    private readonly events: EventStore,
    private readonly transmitter: SignalsTransmitter,
  ) {}

  async create(receiver: Receiver, input: StreamInput): Promise<StreamConfiguration> {
    const settings = this.settingsOf(input, undefined);
    const id = newId();
    await this.uow.run(async (manager) => {
      if ((await streamsOfClient(manager, receiver.clientId)).length >= STREAMS_PER_RECEIVER)
        throw DomainError.invalid(`a receiver holds at most ${STREAMS_PER_RECEIVER} streams`);
      await insertStream(manager, {
        id,
        orgId: receiver.orgId,
        clientId: receiver.clientId,
        ...settings,
        status: 'enabled',
        statusReason: null,
        cursor: await lastEventPosition(manager),
        failures: 0,
        nextAttemptAt: 0,
        lastError: null,
        createdAt: Date.now(),
      });
      await this.record(manager, receiver, 'ssf.stream.added', { streamId: id, delivery: settings.delivery, events: settings.eventsRequested.join(' ') });
    });
    return this.read(receiver, id) as Promise<StreamConfiguration>;
  }

  async list(receiver: Receiver): Promise<StreamConfiguration[]> {
    return (await streamsOfClient(this.uow.manager, receiver.clientId)).map((s) => this.configurationOf(s));
  }

  async read(receiver: Receiver, streamId: string): Promise<StreamConfiguration> {
    return this.configurationOf(await this.own(receiver, streamId));
  }

  /** PATCH (SSF 1.0 §8.1.1.3) changes the members sent; PUT (§8.1.1.4) replaces them all. */
  async update(receiver: Receiver, streamId: string, input: StreamInput, replace: boolean): Promise<StreamConfiguration> {
    const stream = await this.own(receiver, streamId);
    const settings = this.settingsOf(input, replace ? undefined : stream);
    await this.uow.run(async (manager) => {
      await updateStreamConfig(manager, stream.id, settings);
      await this.record(manager, receiver, 'ssf.stream.changed', {
        streamId: stream.id,
        delivery: settings.delivery,
        events: settings.eventsRequested.join(' '),
      });
    });
    return this.read(receiver, streamId);
  }

  async remove(receiver: Receiver, streamId: string): Promise<void> {
    const removed = await this.uow.run(async (manager) => {
      const gone = await deleteStream(manager, receiver.clientId, streamId);
      if (gone) await this.record(manager, receiver, 'ssf.stream.removed', { streamId });
      return gone;
    });
    if (!removed) throw DomainError.notFound('stream');
    await this.transmitter.workers.removed(streamId);
  }

  async status(receiver: Receiver, streamId: string): Promise<{ stream_id: string; status: StreamStatus; reason?: string }> {
    const stream = await this.own(receiver, streamId);
    return { stream_id: stream.id, status: stream.status, ...(stream.statusReason ? { reason: stream.statusReason } : {}) };
  }

  async setStatus(receiver: Receiver, streamId: string, status: StreamStatus, reason: string | undefined) {
    const stream = await this.own(receiver, streamId);
    await this.uow.run(async (manager) => {
      await updateStreamStatus(manager, stream.id, status, reason ?? null);
      await this.record(manager, receiver, 'ssf.stream.changed', { streamId: stream.id, status });
    });
    return this.status(receiver, streamId);
  }

  async verify(receiver: Receiver, streamId: string, state: string | undefined): Promise<void> {
    await this.transmitter.queueVerification(await this.own(receiver, streamId), state);
  }

  /** RFC 8936 §2.4: acknowledges `ack`, then answers what is owed, oldest first, up to `maxEvents`. */
  async poll(receiver: Receiver, streamId: string, request: { ack?: string[]; maxEvents?: number }) {
    const stream = await this.own(receiver, streamId);
    if (stream.delivery !== 'poll') throw DomainError.invalid('the stream is delivered by push, not by poll');
    if (request.ack?.length) await this.uow.run((manager) => dropSets(manager, stream.id, request.ack!));
    const max = Math.min(request.maxEvents ?? POLL_MAX, POLL_MAX);
    const owed = stream.status === 'enabled' && max > 0 ? await owedSets(this.uow.manager, stream.id, max + 1) : [];
    return { sets: Object.fromEntries(owed.slice(0, max).map((s) => [s.jti, s.token])), moreAvailable: owed.length > max };
  }

  /** The application's event: a receiver acts for no user, so there is no editor. */
  private async record(manager: EntityManager, receiver: Receiver, type: EventType, payload: Record<string, string>): Promise<void> {
    await this.events.push(manager, {
      type,
      aggregateType: 'application',
      aggregateId: receiver.appId,
      resourceOwner: receiver.orgId,
      editorUserId: null,
      payload,
    });
  }

  private async own(receiver: Receiver, streamId: string): Promise<SsfStreamRow> {
    const stream = await streamById(this.uow.manager, streamId);
    if (!stream || stream.clientId !== receiver.clientId) throw DomainError.notFound('stream');
    return stream;
  }

  private settingsOf(input: StreamInput, before: SsfStreamRow | undefined) {
    const method = input.delivery?.method ?? (before ? (before.delivery === 'poll' ? POLL_METHOD : PUSH_METHOD) : POLL_METHOD);
    if (method !== PUSH_METHOD && method !== POLL_METHOD)
      throw DomainError.invalidField('delivery.method', `delivery.method must be ${PUSH_METHOD} or ${POLL_METHOD}`);
    const delivery: DeliveryMethod = method === PUSH_METHOD ? 'push' : 'poll';
    let endpointUrl: string | null = null;
    let authorizationHeader: string | null = null;
    if (delivery === 'push') {
      endpointUrl = input.delivery?.endpoint_url ?? (before?.delivery === 'push' ? before.endpointUrl : null);
      if (!endpointUrl) throw DomainError.invalidField('delivery.endpoint_url', 'delivery.endpoint_url is required for push delivery');
      const problem = absoluteUrlProblem(endpointUrl);
      if (problem) throw DomainError.invalidField('delivery.endpoint_url', `delivery.endpoint_url ${problem}`);
      const header = input.delivery?.authorization_header;
      authorizationHeader = header !== undefined ? this.encryptor.encrypt(header) : before?.delivery === 'push' ? before.authorizationHeader : null;
    } else if (input.delivery?.endpoint_url !== undefined) {
      throw DomainError.invalidField('delivery.endpoint_url', 'the transmitter names the poll endpoint: send no delivery.endpoint_url for poll');
    }
    const requested = input.events_requested ?? before?.eventsRequested ?? [];
    const unknown = requested.find((uri) => !EVENTS_SUPPORTED.includes(uri));
    if (unknown !== undefined) throw DomainError.invalidField('events_requested', `events_requested: "${unknown}" is not supported`);
    return {
      delivery,
      endpointUrl,
      authorizationHeader,
      eventsRequested: [...new Set(requested)],
      description: input.description ?? (input.description === undefined && before ? before.description : null),
    };
  }

  private configurationOf(stream: SsfStreamRow): StreamConfiguration {
    const endpoint = stream.delivery === 'poll' ? `${this.config.publicUrl}/ssf/v1/poll/${stream.id}` : (stream.endpointUrl ?? '');
    return {
      stream_id: stream.id,
      iss: this.config.publicUrl,
      aud: stream.clientId,
      events_supported: EVENTS_SUPPORTED,
      events_requested: stream.eventsRequested,
      events_delivered: stream.eventsRequested,
      delivery: { method: stream.delivery === 'poll' ? POLL_METHOD : PUSH_METHOD, endpoint_url: endpoint },
      ...(stream.description ? { description: stream.description } : {}),
    };
  }
}
