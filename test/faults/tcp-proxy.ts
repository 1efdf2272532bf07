import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** How a stopped proxy treats new connections: a stopped server refuses them, a partitioned network swallows them. */
export type OutageMode = 'refuse' | 'blackhole';

/**
 * A TCP proxy on a loopback port in front of the database, so a test can take "the database" away from
 * one service without stopping the server other suites use. `stop` cuts every proxied connection (the
 * service's pooled sockets die) and refuses or blackholes new ones; `start` forwards again.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | OutageMode = 'forward';
  /** Connections the proxy accepted (including swallowed ones): shows the service really reconnected. */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new TcpProxy(target, port);
    await proxy.listen();
    return proxy;
  }

  async stop(mode: OutageMode): Promise<void> {
    this.mode = mode;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    // Refusing means nothing listens on the port any more (ECONNREFUSED), as when the server is down.
    if (mode === 'refuse') await this.unlisten();
    else if (!this.server) await this.listen();
  }

  /** Forwards again: new connections reach the database (a blackholed connection stays dead). */
  async resume(): Promise<void> {
    this.mode = 'forward';
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.stop('refuse');
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  private async unlisten(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private accept(client: Socket): void {
    this.accepted++;
    this.track(client);
    client.on('error', () => undefined);
    if (this.mode !== 'forward') return; // blackhole: the connection is open, nothing ever answers
    const upstream = createConnection(this.target);
    this.track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}
