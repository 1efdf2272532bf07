import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a receiver took. */
export interface Post {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A started receiver: its origin (`http://127.0.0.1:<port>`) and how to stop it. */
export interface PostReceiver {
  origin: string;
  close(): Promise<void>;
}

/**
 * An endpoint as a relying party or an operator would write one (node:http on a free loopback port): every POST to a
 * path `accepts` allows is handed to `take`, whose number is the status answered (undefined: `take` answers, or holds,
 * the response itself). Anything else — another test process's probe of a port it was handed (freePort) — is
 * answered 404 and not handed on.
 */
export async function startPostReceiver(
  accepts: (path: string) => boolean,
  take: (post: Post, response: ServerResponse) => number | undefined,
): Promise<PostReceiver> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method !== 'POST' || !accepts(path)) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = take({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }, res);
      if (status !== undefined) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  return {
    origin,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
