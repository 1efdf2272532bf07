import { BlockList, isIP } from 'node:net';
import { invalid } from './directory-settings.js';

/**
 * The hosts and networks directories may reach (docs/directories.md, "Reaching the directory"), as an IAM_OWNER
 * listed them: a host name, an IP address or a CIDR range, each optionally with a port (`dc1.corp.example:636`,
 * `10.20.0.0/16`, `[fd00::1]:389`). Nothing is allowed until listed: directories are on private networks, where the
 * outbound rules of webhooks and upstreams would refuse them, so the operator names them instead.
 */
export interface HostEntry {
  text: string;
  kind: 'name' | 'address' | 'network';
  /** Lower-cased host name, address, or network address. */
  host: string;
  prefix?: number;
  port?: number;
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** One entry, or a 400 naming `allow[i]`. */
export function parseHostEntry(text: string, index: number): HostEntry {
  const field = `allow[${index}]`;
  const refuse = () => invalid(field, `${field} must be a host name, an IP address or a CIDR range, optionally with :port`);
  let rest = text.trim().toLowerCase();
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](\/\d+)?(?::(\d+))?$/.exec(rest);
  if (bracketed) {
    rest = bracketed[1] + (bracketed[2] ?? '');
    if (bracketed[3]) port = Number(bracketed[3]);
  } else if (!rest.includes('::') && (rest.match(/:/g) ?? []).length === 1) {
    const [host, p] = rest.split(':');
    if (!/^\d{1,5}$/.test(p)) throw refuse();
    rest = host;
    port = Number(p);
  }
  if (port !== undefined && (port < 1 || port > 65535)) throw refuse();
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const address = rest.slice(0, slash);
    const prefix = Number(rest.slice(slash + 1));
    const family = isIP(address);
    if (!family || !/^\d{1,3}$/.test(rest.slice(slash + 1)) || prefix > (family === 4 ? 32 : 128)) throw refuse();
    return { text: text.trim(), kind: 'network', host: address, prefix, port };
  }
  if (isIP(rest)) return { text: text.trim(), kind: 'address', host: rest, port };
  if (!HOST_NAME.test(rest)) throw refuse();
  return { text: text.trim(), kind: 'name', host: rest, port };
}

/** True when the list allows `host` (a name or an address, lower case) on `port`. */
export function hostAllowed(entries: HostEntry[], host: string, port: number): boolean {
  const family = isIP(host);
  return entries.some((entry) => {
    if (entry.port !== undefined && entry.port !== port) return false;
    if (entry.kind === 'name') return !family && entry.host === host;
    if (!family) return false;
    const list = new BlockList();
    const type = isIP(entry.host) === 6 ? 'ipv6' : 'ipv4';
    if (entry.kind === 'address') list.addAddress(entry.host, type);
    else list.addSubnet(entry.host, entry.prefix!, type);
    return list.check(host, family === 6 ? 'ipv6' : 'ipv4');
  });
}
