import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts `serve` in front of the server's request listeners (Express, once Nest installed it): a request
 * `serve` answers (it returns true) never reaches them, any other goes on to them unchanged. For the few
 * paths that need nothing of Express and Nest (docs/decisions/oidc-before-express.md).
 */
export function serveBeforeExpress(server: Server, serve: (req: IncomingMessage, res: ServerResponse) => boolean): void {
  const others = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (serve(req, res)) return;
    for (const listener of others) listener.call(server, req, res);
  });
}
