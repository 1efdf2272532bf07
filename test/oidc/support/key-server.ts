import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An application's `jwks_uri` on loopback: each path serves the key set a test put there (`serve`), and counts the
 * reads, so a test can rotate the keys and see when the service read them again.
 */
export class KeyServer {
  private readonly sets = new Map<string, object>();
  readonly reads = new Map<string, number>();

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly origin: string,
  ) {}

  static async start(): Promise<KeyServer> {
    let self: KeyServer | undefined;
    const server = createServer((req, res) => {
      const path = req.url ?? '';
      self!.reads.set(path, (self!.reads.get(path) ?? 0) + 1);
      const set = self!.sets.get(path);
      if (!set) return void res.writeHead(404).end();
      // A long max-age: the service keeps keys for its own cache period (CLIENT_JWKS_CACHE_MS), whatever this says.
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=86400' }).end(JSON.stringify(set));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new KeyServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Serves `set` at `path` from now on; returns its URL. */
  serve(path: string, set: object): string {
    this.sets.set(path, set);
    return `${this.origin}${path}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
