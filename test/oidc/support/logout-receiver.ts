import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedLogout {
  path: string;
  contentType: string;
  /** The form field `logout_token` (OIDC Back-Channel Logout 1.0 §2.5). */
  logoutToken: string;
  answered: number;
}

/**
 * A relying party's back-channel logout endpoint (node:http on a free loopback port): every POST to a path under
 * `/bcl/` is kept with what was answered (`answer`, 200 unless a test says otherwise). Anything else — another test
 * process's probe of a port it was handed — is 404 and not kept.
 */
export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  answer: (path: string) => number = () => 200;
  private next = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<LogoutReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new LogoutReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const path = new URL(req.url ?? '/', receiver.url).pathname;
      if (req.method !== 'POST' || !path.startsWith('/bcl/')) {
        req.resume();
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const answered = receiver.answer(path);
        receiver.received.push({ path, contentType: String(req.headers['content-type'] ?? ''), logoutToken: form.get('logout_token') ?? '', answered });
        res.writeHead(answered).end();
      });
    });
    return receiver;
  }

  /** A fresh endpoint URI of this receiver, for one application. */
  endpoint(): string {
    return `${this.url}/bcl/${++this.next}`;
  }

  at(uri: string): ReceivedLogout[] {
    const path = new URL(uri).pathname;
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
