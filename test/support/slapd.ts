import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untilListening } from './listening.js';
import { freePort } from './service.js';
import { throwAwayCa } from './throw-away-ca.js';

/**
 * Debian's OpenLDAP server (slapd 2.5) for the directory tests: a cn=config of its own generated with slapadd in a
 * temporary directory, one mdb database under `dc=example,dc=org` with the ppolicy overlay, plain LDAP and LDAPS
 * (a throw-away CA) on free loopback ports, stopped by its PID. The system's slapd service is never used.
 */
export interface Slapd {
  url: string;
  ldapsUrl: string;
  /** The throw-away CA that signed the LDAPS certificate (PEM). */
  caPem: string;
  suffix: string;
  adminDn: string;
  adminPassword: string;
  /** The service account for Portcullis: reads the tree and may reset passwords (write-back). */
  serviceDn: string;
  servicePassword: string;
  /**
   * Runs `ldapadd`/`ldapmodify` as the administrator with the given LDIF; `relax` sends the Relax Rules control, with
   * which the administrator may set operational attributes such as `modifyTimestamp` (an entry unchanged for years).
   */
  modify(ldif: string, add?: boolean, relax?: boolean): void;
  /** True when `dn` binds with `password` (ldapwhoami). */
  binds(dn: string, password: string): boolean;
  stop(): Promise<void>;
}

export const SUFFIX = 'dc=example,dc=org';
const ADMIN_DN = `cn=admin,${SUFFIX}`;
const ADMIN_PASSWORD = 'slapd-admin-secret';
const SERVICE_DN = `cn=portcullis,ou=services,${SUFFIX}`;
const SERVICE_PASSWORD = 'service-account-secret';

function configLdif(dir: string, tls: { ca: string; key: string; cert: string }): string {
  return `dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: ${dir}/slapd.pid
olcTLSCACertificateFile: ${tls.ca}
olcTLSCertificateFile: ${tls.cert}
olcTLSCertificateKeyFile: ${tls.key}

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb
olcModuleLoad: ppolicy

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

include: file:///etc/ldap/schema/core.ldif

include: file:///etc/ldap/schema/cosine.ldif

include: file:///etc/ldap/schema/nis.ldif

include: file:///etc/ldap/schema/inetorgperson.ldif

dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend
olcSizeLimit: unlimited

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcAccess: {0}to * by * none

dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: ${SUFFIX}
olcRootDN: ${ADMIN_DN}
olcRootPW: ${ADMIN_PASSWORD}
olcDbDirectory: ${dir}/data
olcDbMaxSize: 2147483648
olcDbNoSync: TRUE
olcDbIndex: objectClass eq
olcDbIndex: entryUUID eq
olcDbIndex: uid eq
olcDbIndex: member eq
olcDbIndex: modifyTimestamp eq
olcSizeLimit: unlimited
olcAccess: {0}to attrs=userPassword by self write by dn.exact="${SERVICE_DN}" write by anonymous auth by * none
olcAccess: {1}to * by * read

dn: olcOverlay={0}ppolicy,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcPPolicyConfig
olcOverlay: {0}ppolicy
olcPPolicyDefault: cn=default,ou=policies,${SUFFIX}
olcPPolicyHashCleartext: TRUE
olcPPolicyUseLockout: TRUE
`;
}

const TREE = `dn: ${SUFFIX}
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,${SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=groups,${SUFFIX}
objectClass: organizationalUnit
ou: groups

dn: ou=services,${SUFFIX}
objectClass: organizationalUnit
ou: services

dn: ou=policies,${SUFFIX}
objectClass: organizationalUnit
ou: policies

dn: cn=default,ou=policies,${SUFFIX}
objectClass: device
objectClass: pwdPolicy
cn: default
pwdAttribute: userPassword
pwdMustChange: TRUE
pwdAllowUserChange: TRUE
pwdLockout: FALSE

dn: ${SERVICE_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: portcullis
userPassword: ${SERVICE_PASSWORD}
`;

/** Starts slapd with the base tree (people, groups, services, policies) loaded; `extra` LDIF is added after it. */
export async function startSlapd(extra = ''): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'slapd-'));
  mkdirSync(join(dir, 'config'));
  mkdirSync(join(dir, 'data'));
  const tls = throwAwayCa(dir);
  writeFileSync(join(dir, 'config.ldif'), configLdif(dir, tls));
  execFileSync('slapadd', ['-n', '0', '-F', join(dir, 'config'), '-l', join(dir, 'config.ldif')], { stdio: 'pipe' });
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  // `-d 0` keeps slapd in the foreground, so the PID spawned is the server's and stopping it stops the server.
  const child: ChildProcess = spawn('/usr/sbin/slapd', ['-d', '0', '-h', `${url}/ ${ldapsUrl}/`, '-F', join(dir, 'config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await untilListening({ name: 'slapd', child, output: () => output }, '127.0.0.1', port, 20_000);
  const ldap = (tool: string, args: string[], input?: string) =>
    execFileSync(tool, ['-x', '-H', url, ...args], { input, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LDAPTLS_REQCERT: 'never' } });
  const modify = (ldif: string, add = false, relax = false) => {
    ldap(add ? 'ldapadd' : 'ldapmodify', ['-D', ADMIN_DN, '-w', ADMIN_PASSWORD, ...(relax ? ['-e', 'relax'] : [])], ldif);
  };
  modify(TREE + (extra ? `\n${extra}` : ''), true);
  return {
    url,
    ldapsUrl,
    caPem: readFileSync(tls.ca, 'utf8'),
    suffix: SUFFIX,
    adminDn: ADMIN_DN,
    adminPassword: ADMIN_PASSWORD,
    serviceDn: SERVICE_DN,
    servicePassword: SERVICE_PASSWORD,
    modify,
    binds(dn, password) {
      try {
        ldap('ldapwhoami', ['-D', dn, '-w', password]);
        return true;
      } catch {
        return false;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An inetOrgPerson under ou=people with a password. */
export function personLdif(uid: string, fields: { givenName?: string; sn?: string; mail?: string; password?: string; ou?: string } = {}): string {
  const sn = fields.sn ?? 'Person';
  const given = fields.givenName ?? uid;
  return `dn: uid=${uid},${fields.ou ?? `ou=people,${SUFFIX}`}
objectClass: inetOrgPerson
uid: ${uid}
cn: ${given} ${sn}
givenName: ${given}
sn: ${sn}
mail: ${fields.mail ?? `${uid}@example.org`}
userPassword: ${fields.password ?? `${uid}-password`}
`;
}
