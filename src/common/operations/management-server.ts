import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ManagementEndpoints {
  /** Why the service cannot serve now, or undefined when it can. */
  readiness(): Promise<string | undefined>;
  /** The Prometheus text exposition of this process, or of every cluster worker. */
  metrics(): Promise<{ contentType: string; body: string }>;
}

interface ManagementServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The operators' listener (docs/operations.md), apart from the public port so that metrics and
 * readiness are never exposed to the clients of the service: `GET /metrics`, `GET /healthz` (the process
 * answers) and `GET /readyz` (it can serve: database reachable, migrations applied). A plain node:http
 * server: nothing of Nest's pipeline is needed, and it keeps answering while the API is saturated.
 * It does not keep the process alive on its own (shutdown is the service's).
 */
export async function startManagementServer(host: string, port: number, endpoints: ManagementEndpoints): Promise<ManagementServer> {
  const server = createServer((req, res) => {
    answer(req, res, endpoints).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { status: 'error', reason: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  await listen(server, port, host);
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, endpoints: ManagementEndpoints): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/healthz') return json(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const problem = await endpoints.readiness();
    return problem ? json(res, 503, { status: 'unavailable', reason: problem }) : json(res, 200, { status: 'ready' });
  }
  if (path === '/metrics') {
    const { contentType, body } = await endpoints.metrics();
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  json(res, 404, { status: 'not_found', paths: ['/metrics', '/healthz', '/readyz'] });
}

function json(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`the management listener cannot listen on ${host}:${port} (${error.code ?? error.message}); set MANAGEMENT_HOST / MANAGEMENT_PORT`)),
    );
    server.listen(port, host, () => resolve());
  });
}
