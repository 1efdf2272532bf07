import type { Server } from 'node:http';
import { ExpressAdapter } from '@nestjs/platform-express';
import { RequestsInFlight } from './requests-in-flight.js';

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

  override async close(): Promise<void> {
    await super.close();
    await this.requests?.drained();
  }
}
