import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The requests whose handlers still run. `server.close()` waits for connections, not for handlers: a client that
 * resets its connection (killed, timed out, a load balancer giving up) takes the connection away while its handler
 * still reads and writes the database, and the pool closed next under it would fail the handler with "Pool is
 * closed" or cut its work short (docs/operations.md, "Graceful shutdown").
 *
 * A request ends when its response has ended. One whose connection closed first ends when its handler ends the
 * response all the same: Express, Nest, the login UI and oidc-provider's Koa all call `res.end()` whatever the
 * connection (Koa's `respond` ends a response it can no longer write). A response that had started streaming its
 * body (a static file) was past its handler's work: it ends with its connection, as its stream is dropped unended.
 */
export class RequestsInFlight {
  private running = 0;
  private waiting: (() => void)[] = [];

  /** Prepended: it sees every request, also those answered before Express (src/common/http/before-express.ts). */
  constructor(server: Server) {
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => this.track(res));
  }

  get size(): number {
    return this.running;
  }

  /** Resolves once no request is in flight. */
  drained(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private track(res: ServerResponse): void {
    this.running++;
    // 'close' follows 'finish', or comes first when the connection went away before the response ended.
    res.once('close', () => {
      if (res.writableEnded || res.headersSent) return this.ended();
      const end = res.end;
      res.end = ((...args: Parameters<typeof end>) => {
        res.end = end;
        this.ended();
        return end.apply(res, args);
      }) as typeof end;
    });
  }

  private ended(): void {
    if (--this.running > 0) return;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
