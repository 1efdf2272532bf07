import type { EventDto } from '../../admin/dto/events.dto.js';
import { eventIdsAt } from '../../common/events/event-log.js';
import { errorMessage } from '../../common/http/failure-causes.js';
import { auditStreamLag, auditStreamRecords } from '../../common/metrics/metrics.js';
import { LostLease } from '../../common/operations/leased-workers.js';
import { StoppableLoop } from '../../common/operations/stoppable-loop.js';
import { recordDelivered, recordFailure, streamById } from '../audit-stream.queries.js';
import type { StreamRow } from '../audit-stream.queries.js';
import { recordNames } from '../record/record-names.js';
import { recordsOf } from '../record/audit-record.js';
import type { AuditRecord } from '../record/audit-record.js';
import type { AuditStreamer } from './audit-streamer.js';
import { eventsPastCursor } from './stream-lag.js';
import { sendHttpsBatch } from './https-sender.js';
import { sendSyslogBatch } from './syslog-sender.js';
import { syslogHostname } from './syslog-message.js';
import { streamTargetOf } from './stream-url.js';

/** Records per batch: an HTTPS request carries at most this many (docs/audit-and-signals.md, "Delivery"). */
const BATCH = 500;
/** How long a caught-up stream waits before it reads the log again. */
const IDLE_MS = 100;
/**
 * How long a stream waits after a batch that was not full before it reads again: under a steady trickle of changes,
 * batches of a few records each would cost a TLS handshake and four queries per record, on the cores the requests
 * making those changes need (BENCHMARKS.md, "Audit streams"). A record waits at most this much longer.
 */
const LINGER_MS = 250;
/** How long a worker waits for its lease to be fresh enough again. */
const LEASE_POLL_MS = 200;
const MAX_ERROR_LENGTH = 500;

/**
 * Delivers one stream while this process holds its lease: reads the events past the stream's cursor (its filters
 * applied), makes them records numbered and chained on from the last one delivered, and sends them as one batch.
 * Only once the receiver has taken the whole batch do the cursor, sequence and chain move, in one transaction; a
 * batch that fails is sent again from the same cursor after a back-off, rebuilt with the same sequences. Later
 * records wait behind it: nothing is skipped, ever.
 */
export class StreamWorker extends StoppableLoop {
  constructor(
    private readonly streamer: AuditStreamer,
    private readonly streamId: string,
  ) {
    super();
  }

  protected async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.deliver();
        break;
      } catch (error) {
        if (this.stopping || error instanceof LostLease) break;
        this.streamer.logError(`audit stream ${this.streamId}`, error);
        await this.pause(5000);
      }
    }
    this.streamer.forget(this.streamId, this);
  }

  /** Returns when the stream is gone or no longer this process's; throws on a database error. */
  private async deliver(): Promise<void> {
    const { uow, config } = this.streamer;
    while (!this.stopping) {
      const stream = await streamById(uow.manager, this.streamId);
      if (!stream) return;
      const wait = stream.nextAttemptAt - Date.now();
      if (wait > 0) {
        await this.pause(Math.min(wait, 1000));
        continue;
      }
      if (!this.streamer.sendable(stream.id)) {
        await this.pause(LEASE_POLL_MS);
        continue;
      }
      const batch = await this.streamer.events.search({
        asc: true,
        sequence: String(stream.cursor),
        limit: BATCH,
        ...(stream.eventTypes ? { event_types: stream.eventTypes } : {}),
        ...(stream.orgId ? { resource_owner: stream.orgId } : {}),
      });
      if (batch.length === 0) {
        auditStreamLag.set({ stream: stream.id }, 0);
        await this.pause(IDLE_MS);
        continue;
      }
      const records = await this.recordsFor(stream, batch);
      try {
        await this.send(stream, records);
      } catch (error) {
        if (this.stopping) return;
        const failures = stream.failures + 1;
        const at = Date.now();
        const delay = Math.min(config.auditStreams.retryBaseMs * 2 ** Math.min(failures - 1, 30), config.auditStreams.retryMaxMs);
        auditStreamRecords.inc({ result: 'retry' }, records.length);
        await this.streamer.fenced(stream.id, (manager) =>
          recordFailure(manager, stream.id, { error: errorMessage(error).slice(0, MAX_ERROR_LENGTH), at, nextAttemptAt: at + delay }),
        );
        continue;
      }
      const last = records[records.length - 1];
      await this.streamer.fenced(stream.id, (manager) =>
        recordDelivered(manager, stream.id, { cursor: Number(batch[batch.length - 1].sequence), sequence: last.sequence, chain: last.chain, at: Date.now() }),
      );
      auditStreamRecords.inc({ result: 'delivered' }, records.length);
      if (batch.length === BATCH)
        auditStreamLag.set({ stream: stream.id }, await eventsPastCursor(uow.manager, { ...stream, cursor: Number(batch[batch.length - 1].sequence) }));
      else await this.pause(LINGER_MS);
    }
  }

  private async recordsFor(stream: StreamRow, batch: EventDto[]): Promise<AuditRecord[]> {
    const { uow } = this.streamer;
    const ids = await eventIdsAt(
      uow.manager,
      batch.map((e) => e.sequence),
    );
    const names = await recordNames(uow.manager, batch);
    return recordsOf(
      batch.map((event) => ({ eventId: ids.get(event.sequence) ?? event.sequence, event })),
      names,
      { sequence: stream.lastSequence, chain: stream.lastChain },
    );
  }

  private async send(stream: StreamRow, records: AuditRecord[]): Promise<void> {
    const { config, encryptor } = this.streamer;
    const target = streamTargetOf(stream.type, stream.url);
    if (typeof target === 'string') throw new Error(target);
    const allowPrivateNetworks = config.outboundAllowPrivateNetworks;
    if (target.kind === 'https') {
      const secret = encryptor.decrypt(stream.secret!);
      return sendHttpsBatch({ url: target.url, secret, streamId: stream.id, allowPrivateNetworks }, records, this.abort.signal);
    }
    return sendSyslogBatch(
      { ...target, caCertificate: stream.caCertificate, allowPrivateNetworks },
      records,
      syslogHostname(config.publicUrl),
      this.abort.signal,
    );
  }
}
