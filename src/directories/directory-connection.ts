import { Client, InvalidCredentialsError } from 'ldapts';
import type { LookupAddress } from 'node:dns';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { pinnedLookup, resolveAll } from '../common/net/outbound-address.js';
import { hostAllowed } from './directory-hosts.js';
import type { HostEntry } from './directory-hosts.js';
import { parseDirectoryUrl } from './directory-settings.js';
import type { DirectorySettings } from './directory-settings.js';

/** How long a connection and each operation may take before the directory counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;
const OPERATION_TIMEOUT_MS = 30_000;

/** The directory could not be reached, or refused its service account: nobody is deactivated because of it. */
export class DirectoryUnreachable extends Error {
  constructor(
    message: string,
    readonly reason: 'not_allowed' | 'unreachable' | 'tls' | 'bind_refused',
  ) {
    super(message);
    this.name = 'DirectoryUnreachable';
  }
}

/**
 * The addresses a connection to `host`:`port` may use, resolved once (docs/directories.md, "Before anything"): a host
 * the list names is trusted with whatever it resolves to; any other host — an address, or a name the list does not
 * name — only when every address it resolves to is in an address or range the list holds. Refused (`not_allowed`)
 * before any socket opens; the connection then goes to these addresses only (pinnedLookup), never to a second
 * resolution's answer.
 */
export async function allowedAddresses(allow: HostEntry[], host: string, port: number): Promise<LookupAddress[]> {
  const named = hostAllowed(allow, host, port);
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch (error) {
    if (!named) throw new DirectoryUnreachable(`${host}:${port} is not an allowed directory host`, 'not_allowed');
    throw new DirectoryUnreachable(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'no address'})`, 'unreachable');
  }
  if (!named && (addresses.length === 0 || addresses.some((a) => !hostAllowed(allow, a.address.toLowerCase(), port))))
    throw new DirectoryUnreachable(`${host}:${port} is not an allowed directory host`, 'not_allowed');
  return addresses;
}

/** A 400 naming `url` when the hosts list does not allow the directory's host and port: checked before any connection. */
export async function assertHostAllowed(allow: HostEntry[], url: string): Promise<void> {
  const { host, port } = parseDirectoryUrl(url);
  try {
    await allowedAddresses(allow, host, port);
  } catch (error) {
    // A host the list names may not resolve yet (a directory set up ahead): each connection checks it again.
    if (error instanceof DirectoryUnreachable && error.reason === 'unreachable') return;
    throw DomainError.invalidField('url', `url: ${host}:${port} is not among the hosts an IAM_OWNER allows directories to reach (/admin/v1/directory-hosts)`);
  }
}

/** TLS settings: a pinned CA replaces the system's store; the host name is always verified. */
function tlsOptionsOf(settings: Pick<DirectorySettings, 'url' | 'caCertificate'>): ConnectionOptions {
  const { host } = parseDirectoryUrl(settings.url);
  return { ...(settings.caCertificate ? { ca: [settings.caCertificate] } : {}), servername: /^[\d.]+$|:/.test(host) ? undefined : host, minVersion: 'TLSv1.2' };
}

/**
 * A connection to the directory, TLS set up (ldaps, or StartTLS per RFC 4511 §4.14) and not yet bound; the host is
 * checked against the allow-list first. The caller unbinds it.
 */
export async function connectTo(
  settings: Pick<DirectorySettings, 'url' | 'startTls' | 'caCertificate'>,
  allow: HostEntry[],
): Promise<{ client: Client; tls: boolean }> {
  const { scheme, host, port } = parseDirectoryUrl(settings.url);
  const lookup = pinnedLookup(await allowedAddresses(allow, host, port));
  const tlsOptions = tlsOptionsOf(settings);
  // ldapts speaks TLS from the start whenever it is given TLS options: only ldaps gets them up front.
  const client = new Client({
    url: settings.url,
    connectTimeout: CONNECT_TIMEOUT_MS,
    timeout: OPERATION_TIMEOUT_MS,
    strictDN: false,
    ...(scheme === 'ldaps' ? { tlsOptions } : {}),
    // Every socket goes to the addresses checked above: the shared outbound rule's pinning, with the directory's list.
    createConnection: ((p: number, h: string) => netConnect({ port: p, host: h, lookup })) as typeof netConnect,
    createSecureConnection: ((p: number, h: string, options?: ConnectionOptions) => tlsConnect({ ...options, port: p, host: h, lookup })) as typeof tlsConnect,
  });
  try {
    if (settings.startTls) await client.startTLS(tlsOptions);
    // The root DSE (RFC 4512 §5.1), readable before a bind: proves the connection and its TLS.
    await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] });
  } catch (error) {
    await client.unbind().catch(() => undefined);
    throw unreachableOf(error);
  }
  return { client, tls: scheme === 'ldaps' || settings.startTls };
}

/** A connection bound as the service account. */
export async function serviceConnection(settings: DirectorySettings, bindPassword: string, allow: HostEntry[]): Promise<Client> {
  const { client } = await connectTo(settings, allow);
  try {
    await client.bind(settings.bindDn, bindPassword);
  } catch (error) {
    await client.unbind().catch(() => undefined);
    if (error instanceof InvalidCredentialsError)
      throw new DirectoryUnreachable('the directory refused the service account (bindDn, bindPassword)', 'bind_refused');
    throw unreachableOf(error);
  }
  return client;
}

/** What a failed connection says, without secrets: the address and the system's reason. */
export function unreachableOf(error: unknown): DirectoryUnreachable {
  if (error instanceof DirectoryUnreachable) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? '';
  const tls = /certificate|self.signed|CERT_|SSL|TLS|altnames/i.test(`${code} ${message}`);
  return new DirectoryUnreachable(tls ? `TLS: ${message}` : message, tls ? 'tls' : 'unreachable');
}

/** A directory problem as the API shows it (a 503 for the sync and test endpoints' callers). */
export function unavailable(error: DirectoryUnreachable): DomainError {
  return new DomainError(ErrorCode.Unavailable, `the directory is unreachable: ${error.message}`);
}
