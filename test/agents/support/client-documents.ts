import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ClientDocuments {
  /** Publishes a Client ID Metadata Document at a new path; returns its URL, which is the client id. */
  publish(make: (clientId: string) => Record<string, unknown>, name: string): string;
  /** How often each path was fetched. */
  fetches: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Where agents publish their Client ID Metadata Documents: an HTTPS server on loopback whose certificate a
 * throw-away CA signed (MCP clients use `https` client ids only; the service trusts the CA through NODE_EXTRA_CA_CERTS).
 */
export async function startClientDocuments(tls: { key: string; cert: string }): Promise<ClientDocuments> {
  const documents = new Map<string, string>();
  const fetches = new Map<string, number>();
  const server = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
    const path = req.url ?? '';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const body = documents.get(path);
    if (body === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    publish(make, name) {
      const path = `/clients/${name}.json`;
      const clientId = `${origin}${path}`;
      documents.set(path, JSON.stringify(make(clientId)));
      return clientId;
    },
    fetches,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
