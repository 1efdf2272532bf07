import type { IncomingMessage, Server } from 'node:http';
import proxyaddr from 'proxy-addr';

const TRUST = Symbol('trusted proxies');

type TrustedRequest = IncomingMessage & { [TRUST]?: (address: string, hop: number) => boolean };

/**
 * Which addresses are the operator's own proxies (TRUSTED_PROXIES: addresses, CIDR ranges, or `loopback`,
 * `linklocal`, `uniquelocal`). Throws on a value proxy-addr cannot read, so the configuration can name it.
 */
export function compileTrustedProxies(list: string[]): (address: string, hop: number) => boolean {
  return proxyaddr.compile(list);
}

/**
 * Every request of this server learns which proxies are trusted: prepended, so that it runs before any listener that
 * may ask where a request came from (the OIDC endpoints are served before Express: src/common/http/before-express.ts).
 */
export function trustProxies(server: Server, trusted: (address: string, hop: number) => boolean): void {
  server.prependListener('request', (req: IncomingMessage) => {
    (req as TrustedRequest)[TRUST] = trusted;
  });
}

/**
 * The address a request came from, for per-address limits and the hashed address events record
 * (docs/operations.md, "Behind a reverse proxy"): the connection's own address, unless that is a trusted proxy; then
 * X-Forwarded-For is read from the right, hop by hop, up to the first address that is no trusted proxy. A client
 * cannot forge its way past its own proxy: what it wrote is left of the address its proxy appended.
 */
export function clientAddress(req: IncomingMessage): string {
  const trusted = (req as TrustedRequest)[TRUST];
  const socketAddress = req.socket.remoteAddress ?? '';
  if (trusted === undefined || socketAddress === '') return socketAddress;
  return proxyaddr(req, trusted);
}
