import { lookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where the service may connect on its own initiative (webhooks today; federation metadata and outbound
 * SCIM targets next): the one check of every outbound URL's addresses (docs/webhooks.md, "Targets on
 * private networks"). A request the service makes for a caller, pointed at 127.0.0.1, 169.254.169.254 or
 * an internal address, would reach what the caller cannot (SSRF). An address is public only when it is
 * global unicast: ipaddr.js classifies the special-purpose ranges of the IANA registries (RFC 6890), and
 * the IPv6 forms that wrap an IPv4 address are judged by the address they wrap.
 */

/** IPv6 ranges ipaddr.js counts as unicast that reach no public host, or wrap an address that cannot be checked. */
const NOT_GLOBAL_V6 = [
  '::/96', // IPv4-compatible, deprecated (RFC 4291 §2.5.5.1): ::127.0.0.1 = ::7f00:1
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
  '2001::/32', // Teredo (RFC 4380): the IPv4 inside is obfuscated
  '2001:db8::/32', // documentation (RFC 3849)
  '100::/64', // discard-only (RFC 6666)
  'fc00::/7', // unique local (RFC 4193)
  'fe80::/10', // link-local
  'ff00::/8', // multicast
].map((cidr) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number]);

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16') as [ipaddr.IPv6, number];

/** Whether the service may connect to this address (an IP literal; anything else is not public). */
export function isPublicAddress(address: string): boolean {
  // isIP first: ipaddr.js also reads legacy forms such as "127.1" or "2130706433", which no resolver returns.
  if (!isIP(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const wrapped = wrappedIpv4(v6);
  if (wrapped) return wrapped.range() === 'unicast';
  if (NOT_GLOBAL_V6.some((range) => v6.match(range))) return false;
  return v6.range() === 'unicast';
}

/** The IPv4 address inside an IPv4-mapped (RFC 4291 §2.5.5.2), NAT64 (RFC 6052) or 6to4 (RFC 3056) address. */
function wrappedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const p = v6.parts;
  if (v6.match(NAT64)) return ipv4Of(p[6], p[7]);
  if (v6.match(SIX_TO_FOUR)) return ipv4Of(p[1], p[2]);
  return undefined;
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
}

/** The host of a URL as the resolver wants it (IPv6 literals without their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The addresses `host` resolves to that are not public (none: every one is). Rejects when the name does not resolve. */
export async function nonPublicAddressesOf(host: string): Promise<string[]> {
  return (await resolveAll(host)).map((a) => a.address).filter((address) => !isPublicAddress(address));
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
 * addresses is not public: the socket connects to an address that was checked, never to a second
 * resolution's answer (DNS rebinding). An IP literal never reaches a lookup, so callers check literals
 * themselves (`isPublicAddress`).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.filter((a) => !isPublicAddress(a.address));
    answerLookup(hostname, addresses, refused, options, callback);
  });
}

/**
 * The same guard over another resolver (a DNS server the operator named, domain-verification.ts): the name is
 * resolved once by `resolve`, and with `allowPrivateNetworks` false every address must be public.
 */
export function lookupVia(resolve: (host: string) => Promise<LookupAddress[]>, allowPrivateNetworks: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const refused = allowPrivateNetworks ? [] : addresses.filter((a) => !isPublicAddress(a.address));
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        answerLookup(hostname, addresses, refused, options, callback);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/**
 * A `lookup` answering with addresses resolved and checked beforehand by a rule of the caller's own (a directory's
 * allow-list, src/directories): the socket connects to one of them, never to a second resolution's answer (DNS
 * rebinding), as guardedLookup's does for public addresses.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const fitting = family ? addresses.filter((a) => a.family === family) : [...addresses];
    if (fitting.length === 0) return callback(Object.assign(new Error(`${hostname} has no address of the family asked for`), { code: 'ENOTFOUND' }), []);
    answerLookup(hostname, fitting, [], options, callback);
  };
}

/** Refuses the connection when any address was refused; otherwise answers with the addresses the caller checked. */
function answerLookup(hostname: string, addresses: LookupAddress[], refused: LookupAddress[], options: LookupOptions, callback: LookupCallback): void {
  if (refused.length > 0)
    return callback(
      new NonPublicTargetError(
        hostname,
        refused.map((a) => a.address),
      ),
      [],
    );
  if (options.all) return callback(null, addresses);
  callback(null, addresses[0].address, addresses[0].family);
}

export class NonPublicTargetError extends Error {
  readonly code = 'ENONPUBLIC';
  constructor(host: string, addresses: string[]) {
    super(`${host} resolves to a non-public address (${addresses.join(', ')}); set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it`);
  }
}
