import { isIP } from 'node:net';

/** The kinds of stream (docs/audit-and-signals.md, "Delivery"). */
export type StreamType = 'syslog' | 'https';

/** Where a stream sends: a syslog receiver over TLS, one over plain TCP on loopback, or an HTTPS endpoint. */
export type StreamTarget =
  | { kind: 'syslog+tls'; host: string; port: number }
  | { kind: 'syslog+tcp'; host: string; port: number }
  | { kind: 'https'; url: string };

/** RFC 5425 §4.1: the port assigned to syslog over TLS. */
const SYSLOG_TLS_PORT = 6514;
const LOOPBACK_NAMES = new Set(['localhost']);

/** The stream's target, or why the URL cannot be one for a stream of this type. */
export function streamTargetOf(type: StreamType, raw: string): StreamTarget | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.hash) return 'url must not have a fragment';
  if (type === 'https') {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url of an https stream must be an https:// URL';
    return { kind: 'https', url: url.toString() };
  }
  if (url.protocol !== 'syslog+tls:' && url.protocol !== 'syslog+tcp:')
    return 'url of a syslog stream must be syslog+tls://host:port (or syslog+tcp:// to loopback)';
  if ((url.pathname && url.pathname !== '/') || url.search) return 'url of a syslog stream must name only a host and a port';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return 'url must name a host';
  const port = url.port ? Number(url.port) : SYSLOG_TLS_PORT;
  if (url.protocol === 'syslog+tcp:') {
    // Plain TCP carries the records unencrypted and unauthenticated: only to a receiver on this machine.
    if (!isLoopback(host)) return 'url: syslog+tcp:// is only for a receiver on loopback; use syslog+tls://';
    return { kind: 'syslog+tcp', host, port };
  }
  return { kind: 'syslog+tls', host, port };
}

function isLoopback(host: string): boolean {
  if (LOOPBACK_NAMES.has(host.toLowerCase())) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
