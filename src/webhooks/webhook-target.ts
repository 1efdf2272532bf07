import { lookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent. A subscription is a request the service makes on its own: pointed at
 * 127.0.0.1, 169.254.169.254 or an internal address it would reach what the caller cannot (SSRF). Such
 * targets are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true — at creation and again at each
 * delivery, where the connection goes to the address that was checked (see `guardedLookup`), so a name
 * that later resolves elsewhere (DNS rebinding) is refused too.
 */
const NON_PUBLIC = new BlockList();
// IPv4: RFC 6890's special-purpose ranges that are not globally reachable.
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // RFC 6598 carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
// IPv6: unspecified, loopback, unique local (RFC 4193), link-local, multicast.
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** Whether an address is one a webhook may not reach without WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address);
  if (embedded) return NON_PUBLIC.check(embedded, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d, RFC 4291 §2.5.5.2) or NAT64 (64:ff9b::/96, RFC 6052) address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(lower);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = parseInt(match[2], 16);
  const low = parseInt(match[3], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why a target URL cannot be used (shape only; see `refusedAddresses` for where it points). */
export function targetUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an absolute http or https URL';
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.hash) return 'url must not have a fragment';
  if (!url.hostname) return 'url must name a host';
  return undefined;
}

/** The host of a URL as the resolver wants it (IPv6 literals without their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Every address the host resolves to (an IP literal: itself). Rejects when the name does not resolve. */
export function resolveAll(host: string): Promise<LookupAddress[]> {
  const family = isIP(host);
  if (family) return Promise.resolve([{ address: host, family }]);
  return new Promise((resolve, reject) => lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves the name once and refuses the connection when any of its
 * addresses is non-public: the socket connects to an address that was checked, never to a second
 * resolution's answer. An IP literal never reaches a lookup, so the sender checks literals itself.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.filter((a) => isNonPublicAddress(a.address));
    if (refused.length > 0) return callback(new NonPublicTargetError(hostname, refused.map((a) => a.address)), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

export class NonPublicTargetError extends Error {
  readonly code = 'ENONPUBLIC';
  constructor(host: string, addresses: string[]) {
    super(`${host} resolves to a non-public address (${addresses.join(', ')}); set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it`);
  }
}
