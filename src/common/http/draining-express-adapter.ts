import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { RequestsInFlight } from './requests-in-flight.js';

/**
 * How long shutdown waits for handlers whose clients went away, once every connection has closed. Only a handler
 * that never ends its response reaches it: without a bound it would hold the process until the orchestrator kills it.
 */
const ABANDONED_REQUESTS_WAIT_MS = 60_000;

/**
 * Nest's Express adapter, whose `close()` (Nest's shutdown, after the modules' destroy hooks and before the database
 * pool closes) also waits for the handlers of requests whose clients went away (src/common/http/requests-in-flight.ts).
 */
export class DrainingExpressAdapter extends ExpressAdapter {
  private requests: RequestsInFlight | undefined;

  /** Tracking starts here, once configureApp has put every request listener in place (a later one would not see it). */
  override listen(port: string | number, callback?: () => void): Server;
  override listen(port: string | number, hostname: string, callback?: () => void): Server;
  override listen(port: string | number, ...rest: unknown[]): Server {
    this.requests ??= new RequestsInFlight(this.getHttpServer());
    return Reflect.apply(super.listen, this, [port, ...rest]) as Server;
  }

  /** Requests whose handlers still run (start-up and shutdown logs say how many a stop waited for). */
  get inFlight(): number {
    return this.requests?.size ?? 0;
  }

  override async close(): Promise<void> {
    this.requests?.stopKeepingAlive();
    await super.close();
    const requests = this.requests;
    if (!requests || requests.size === 0) return;
    const waited = new AbortController();
    const drained = await Promise.race([
      requests.drained().then(() => true),
      delay(ABANDONED_REQUESTS_WAIT_MS, false, { signal: waited.signal }).catch(() => false),
    ]);
    waited.abort();
    if (!drained)
      new Logger('shutdown').warn(
        `${requests.size} request(s) whose clients went away still ran after ${ABANDONED_REQUESTS_WAIT_MS} ms: closing the database under them`,
      );
  }
}
