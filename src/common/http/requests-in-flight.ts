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
  /** Responses not yet done (their 'close' not yet seen). */
  private readonly open = new Set<ServerResponse>();
  private stopping = false;

  /** Prepended: it sees every request, also those answered before Express (src/common/http/before-express.ts). */
  constructor(private readonly server: Server) {
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => this.track(res));
  }

  /**
   * From now on no connection is kept alive once its answer is out: an answer not yet begun says `Connection: close`
   * (RFC 9112 §9.6) and its connection closes after it; one already begun closes its connection as it falls idle.
   * `server.close()` closes only the connections idle at that moment: without this, a connection busy then stays
   * open for the whole keep-alive timeout after its answer, and the stop waits for it (docs/operations.md, "Graceful
   * shutdown").
   */
  stopKeepingAlive(): void {
    this.stopping = true;
    for (const res of this.open) this.closeAfter(res);
    this.server.closeIdleConnections();
  }

  get size(): number {
    return this.running;
  }

  /** Resolves once no request is in flight. */
  drained(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private closeAfter(res: ServerResponse): void {
    if (!res.headersSent) res.shouldKeepAlive = false;
    // After 'finish' the connection is marked idle in the same turn: closed on the next.
    else res.once('finish', () => setImmediate(() => this.server.closeIdleConnections()));
  }

  private track(res: ServerResponse): void {
    this.running++;
    this.open.add(res);
    if (this.stopping) this.closeAfter(res);
    // 'close' follows 'finish', or comes first when the connection went away before the response ended.
    res.once('close', () => {
      this.open.delete(res);
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
