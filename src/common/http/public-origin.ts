import type { IncomingMessage, Server } from 'node:http';

/**
 * Makes every request look as if it arrived at PUBLIC_URL, before any handler reads it.
 *
 * oidc-provider builds the discovery document, the login UI's `returnTo` and every redirect from the
 * request (Koa's `ctx.href`: the Host header, or X-Forwarded-Host/-Proto behind a trusted proxy), so a
 * forged Host would make the service advertise an attacker's endpoints (host header injection; OpenID
 * Connect Discovery 1.0 §4.3 requires the issuer, and so its endpoints, to be the configured one).
 * The only origin the service has is PUBLIC_URL (SECURITY.md, "Host header injection"): Host is
 * set to its host, X-Forwarded-Proto to its scheme, and X-Forwarded-Host and Forwarded are dropped,
 * so neither Express nor Koa can see another origin, whatever a client or proxy sends.
 *
 * Registered as the server's first `request` listener, it runs before Express and oidc-provider.
 */
export function pinRequestsToPublicOrigin(server: Server, publicUrl: string): void {
  const origin = new URL(publicUrl);
  const proto = origin.protocol.slice(0, -1);
  server.prependListener('request', (req: IncomingMessage) => pinToPublicOrigin(req, origin.host, proto));
}

function pinToPublicOrigin(req: IncomingMessage, host: string, proto: string): void {
  req.headers.host = host;
  req.headers['x-forwarded-proto'] = proto;
  delete req.headers['x-forwarded-host'];
  delete req.headers.forwarded;
}
