import { eventsPast, lastEventPosition } from '../../common/events/event-log.js';
import { errorMessage } from '../../common/http/failure-causes.js';
import { LostLease } from '../../common/operations/leased-workers.js';
import { StoppableLoop } from '../../common/operations/stoppable-loop.js';
import type { SignalsTransmitter } from './signals-transmitter.js';
import { dropSets, moveCursor, owedSets, queueSets, recordDelivered, recordFailure, streamById } from './stream.queries.js';
import type { SsfStreamRow } from './stream.queries.js';

/** Events read per pass, and SETs pushed per pass. */
const BATCH = 200;
const PUSH_BATCH = 20;
/** How long a caught-up stream waits before it reads the log again. */
const IDLE_MS = 150;
const MAX_ERROR_LENGTH = 500;

/**
 * Works one stream while this process holds its lease (docs/signals.md, "Delivery"). An enabled stream turns the
 * events past its cursor into SETs queued for it, in the transaction that moves the cursor, and a push stream then
 * POSTs them in order (RFC 8935 §2), each dropped from the queue once the receiver answered 202; a SET not taken is
 * sent again after a back-off, and the ones behind it wait. A paused stream holds everything — its cursor stays, so
 * what happens meanwhile becomes SETs when it is enabled again (SSF 1.0 §8.1.2); a disabled one passes events over.
 */
export class StreamWorker extends StoppableLoop {
  constructor(
    private readonly transmitter: SignalsTransmitter,
    private readonly streamId: string,
  ) {
    super();
  }

  protected async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.work();
        break;
      } catch (error) {
        if (this.stopping || error instanceof LostLease) break;
        this.transmitter.logError(`shared signals stream ${this.streamId}`, error);
        await this.pause(5000);
      }
    }
    this.transmitter.workers.forget(this.streamId, this);
  }

  private async work(): Promise<void> {
    const { uow } = this.transmitter;
    while (!this.stopping) {
      const stream = await streamById(uow.manager, this.streamId);
      if (!stream) return;
      if (stream.status === 'paused') {
        await this.pause(IDLE_MS);
        continue;
      }
      if (stream.status === 'disabled') {
        const last = await lastEventPosition(uow.manager);
        if (last > stream.cursor) await this.transmitter.workers.fenced(stream.id, (m) => moveCursor(m, stream.id, last));
        await this.pause(IDLE_MS);
        continue;
      }
      const made = await this.makeSets(stream);
      const pushed = stream.delivery === 'push' ? await this.push(stream) : false;
      if (!made && !pushed) await this.pause(IDLE_MS);
    }
  }

  /** The events past the cursor as SETs in the stream's queue; whether there were any events. */
  private async makeSets(stream: SsfStreamRow): Promise<boolean> {
    const events = await eventsPast(this.transmitter.uow.manager, stream.cursor, stream.orgId, BATCH);
    if (events.length === 0) return false;
    const sets = await this.transmitter.setsFor(stream, events);
    const cursor = events[events.length - 1].position;
    await this.transmitter.workers.fenced(stream.id, async (manager) => {
      await queueSets(manager, stream.id, sets);
      await moveCursor(manager, stream.id, cursor);
    });
    return true;
  }

  /** Pushes what is owed, in order, until one is not taken; whether anything was pushed or tried. */
  private async push(stream: SsfStreamRow): Promise<boolean> {
    const { uow, workers, config } = this.transmitter;
    const wait = stream.nextAttemptAt - Date.now();
    if (wait > 0) {
      await this.pause(Math.min(wait, 1000));
      return true;
    }
    const owed = await owedSets(uow.manager, stream.id, PUSH_BATCH);
    for (const set of owed) {
      if (this.stopping) return true;
      if (!this.transmitter.sendable(stream.id)) {
        await this.pause(200);
        return true;
      }
      try {
        await this.transmitter.pushSet(stream, set.token, this.abort.signal);
      } catch (error) {
        if (this.stopping) return true;
        const delay = Math.min(config.auditStreams.retryBaseMs * 2 ** Math.min(stream.failures, 30), config.auditStreams.retryMaxMs);
        await workers.fenced(stream.id, (m) =>
          recordFailure(m, stream.id, { error: errorMessage(error).slice(0, MAX_ERROR_LENGTH), nextAttemptAt: Date.now() + delay }),
        );
        return true;
      }
      await workers.fenced(stream.id, async (m) => {
        await dropSets(m, stream.id, [set.jti]);
        await recordDelivered(m, stream.id);
      });
      stream.failures = 0;
    }
    return owed.length > 0;
  }
}
