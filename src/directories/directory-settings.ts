import { DomainError } from '../common/errors/domain-error.js';

/** What kind of server a directory is: OpenLDAP and its kin, or Active Directory (docs/directories.md). */
export const DIRECTORY_TYPES = ['ldap', 'active-directory'] as const;
export type DirectoryType = (typeof DIRECTORY_TYPES)[number];

export const PASSWORD_CHECKS = ['bind', 'off'] as const;
export type PasswordCheck = (typeof PASSWORD_CHECKS)[number];

/** Which directory attribute fills which user field. */
export interface AttributeMapping {
  userName: string;
  email: string;
  givenName: string;
  familyName: string;
  displayName: string;
  phone: string;
  externalId: string;
}

/** A directory's settings as stored (JSON in `directories.settings`): everything but the bind password. */
export interface DirectorySettings {
  url: string;
  startTls: boolean;
  caCertificate: string | null;
  bindDn: string;
  usersDn: string;
  userFilter: string;
  groupsDn: string | null;
  groupFilter: string;
  attributes: AttributeMapping;
  sync: { intervalMinutes: number };
  passwordCheck: PasswordCheck;
  writeBack: boolean;
  jit: boolean;
}

export const DIRECTORY_BOUNDS = { name: 200, url: 2048, dn: 1024, filter: 1024, attribute: 100, caCertificate: 20_000, password: 1024 } as const;

/**
 * The defaults of each type (docs/directories.md, "Attribute defaults"): OpenLDAP's inetOrgPerson linked by
 * entryUUID (RFC 4530); Active Directory's person objects linked by objectGUID — never the DN, which renames and
 * moves change.
 */
export const DEFAULTS: Record<DirectoryType, { userFilter: string; groupFilter: string; attributes: AttributeMapping }> = {
  ldap: {
    userFilter: '(objectClass=inetOrgPerson)',
    groupFilter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup))',
    attributes: {
      userName: 'uid',
      email: 'mail',
      givenName: 'givenName',
      familyName: 'sn',
      displayName: 'cn',
      phone: 'telephoneNumber',
      externalId: 'entryUUID',
    },
  },
  'active-directory': {
    userFilter: '(&(objectCategory=person)(objectClass=user))',
    groupFilter: '(objectClass=group)',
    attributes: {
      userName: 'sAMAccountName',
      email: 'mail',
      givenName: 'givenName',
      familyName: 'sn',
      displayName: 'displayName',
      phone: 'telephoneNumber',
      externalId: 'objectGUID',
    },
  },
};

export const DEFAULT_SYNC_INTERVAL_MINUTES = 15;

/** A 400 naming the field. */
export function invalid(field: string, message: string): DomainError {
  return DomainError.invalidField(field, message);
}

/** The URL's parts, or a 400 naming `url`: `ldap://` or `ldaps://`, a host, an optional port, nothing else. */
export function parseDirectoryUrl(text: string): { scheme: 'ldap' | 'ldaps'; host: string; port: number } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('url', 'url must be ldap://host:port or ldaps://host:port');
  }
  const scheme = url.protocol === 'ldap:' ? 'ldap' : url.protocol === 'ldaps:' ? 'ldaps' : undefined;
  if (!scheme || !url.hostname || url.username || url.password || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    throw invalid('url', 'url must be ldap://host:port or ldaps://host:port');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { scheme, host: host.toLowerCase(), port: url.port ? Number(url.port) : scheme === 'ldaps' ? 636 : 389 };
}

/** Loopback hosts may be reached without TLS (a directory on the same machine); every other host needs it. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * TLS is required (`ldaps`, or StartTLS on `ldap`) except to a loopback host: the bind password and every synced
 * person's password at sign-in cross this connection.
 */
export function assertTransport(settings: Pick<DirectorySettings, 'url' | 'startTls'>): void {
  const { scheme, host } = parseDirectoryUrl(settings.url);
  if (scheme === 'ldap' && !settings.startTls && !isLoopback(host))
    throw invalid('url', 'url must use ldaps:// (or startTls: true) unless the directory is on a loopback address');
  if (scheme === 'ldaps' && settings.startTls) throw invalid('startTls', 'startTls applies to ldap:// URLs only; ldaps:// is TLS from the start');
}

/**
 * Creating people at sign-in is not built yet: refused with a 400 naming the field rather than stored and ignored
 * (docs/directories.md, "What is not there yet"). Write-back needs the password check by bind: a directory whose
 * passwords Portcullis does not check is not one it writes them to.
 */
export function assertSupported(settings: Pick<DirectorySettings, 'writeBack' | 'jit' | 'passwordCheck'>): void {
  if (settings.writeBack && settings.passwordCheck !== 'bind') throw invalid('writeBack', 'writeBack: true needs passwordCheck: "bind"');
  if (settings.jit) throw invalid('jit', 'jit: true is not supported yet; people arrive by the sync');
}
