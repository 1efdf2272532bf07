import { execFile, execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { untilListening } from './listening.js';
import { throwAwayCa } from './throw-away-ca.js';

/**
 * Debian's Samba as an Active Directory domain controller for the directory tests: a domain provisioned with
 * `samba-tool domain provision` (once, then copied: provisionedTemplate), run in the foreground with a smb.conf of its own that
 * starts only its LDAP server, stopped by its PID. Samba's LDAP server has no port setting (389 and 636 are fixed), so
 * it runs in a network namespace of its own, reached over a veth pair at an address of 10.213.0.0/16 that nothing
 * else here uses; the namespace and the pair are removed at the end. Needs CAP_NET_ADMIN (CI runs as root).
 * LDAPS carries a certificate from a throw-away CA for that address: AD sets passwords (`unicodePwd`) over TLS only.
 */
export interface SambaDc {
  /** ldaps://10.213.x.2:636 */
  url: string;
  /** The address the DC listens on, for the directory-hosts allow-list. */
  address: string;
  caPem: string;
  /** DC=corp,DC=example,DC=test */
  baseDn: string;
  adminDn: string;
  adminPassword: string;
  /** A service account in Account Operators: reads the directory and may reset ordinary users' passwords. */
  serviceDn: string;
  servicePassword: string;
  /** How long `samba-tool domain provision` took (ms), 0 when a provisioned template was at hand. */
  provisionMs: number;
  /** How long copying the provisioned template took (ms). */
  copyMs: number;
  /** ldapadd/ldapmodify as the domain's Administrator, over LDAPS. */
  modify(ldif: string, add?: boolean): void;
  /** The result of binding as `dn` with `password`: 'ok', or the server's diagnostic (AD's `data 52e`, `773`, …). */
  bind(dn: string, password: string): string;
  stop(): Promise<void>;
}

export const AD_BASE = 'DC=corp,DC=example,DC=test';
const REALM = 'CORP.EXAMPLE.TEST';
const ADMIN_PASSWORD = 'Samba-Admin-pw-1';
const SERVICE_PASSWORD = 'Samba-Service-pw-1';
const run = promisify(execFile);

/** A password as AD's `unicodePwd` takes it: the quoted password in UTF-16LE, base64 for LDIF ([MS-ADTS] 3.1.1.3.1.5). */
export function unicodePwd(password: string): string {
  return Buffer.from(`"${password}"`, 'utf16le').toString('base64');
}

/** A user under `ou` (OU=Staff unless told), enabled, with a password. */
export function adUserLdif(sam: string, fields: { givenName: string; sn: string; password: string; ou?: string; disabled?: boolean }): string {
  return `dn: CN=${fields.givenName} ${fields.sn},${fields.ou ?? `OU=Staff,${AD_BASE}`}
objectClass: user
sAMAccountName: ${sam}
userPrincipalName: ${sam}@corp.example.test
givenName: ${fields.givenName}
sn: ${fields.sn}
displayName: ${fields.givenName} ${fields.sn}
mail: ${sam}@corp.example.test
unicodePwd:: ${unicodePwd(fields.password)}
userAccountControl: ${fields.disabled ? 514 : 512}
`;
}

/** A free 10.213.N.0/30 (N from the PID, moved on while an interface of this machine already holds it). */
function freeSubnet(): number {
  const held = execFileSync('ip', ['-o', '-4', 'addr'], { encoding: 'utf8' });
  for (let i = 0; i < 250; i++) {
    const n = ((process.pid + i) % 250) + 3;
    if (!held.includes(`10.213.${n}.`)) return n;
  }
  throw new Error('no free 10.213.N.0/30 for the Samba namespace');
}

const PROVISION_ARGS = [`--realm=${REALM}`, '--domain=CORP', '--server-role=dc', '--dns-backend=NONE', `--adminpass=${ADMIN_PASSWORD}`, '--host-name=dc1'];

/**
 * A domain provisioned once per Samba version and provisioning arguments, kept under the system's temporary
 * directory and copied by every DC started: provisioning costs most of a minute, a copy a second, so the SQLite and
 * MariaDB passes of one run (and the runs after) pay it once. Provisioned into a scratch directory and renamed into
 * place, so a template is whole or absent; two processes that race both provision, and the second rename loses.
 * Nothing in it depends on the address or the certificate, which each DC gets at start.
 */
async function provisionedTemplate(): Promise<{ dir: string; provisionMs: number }> {
  const version = execFileSync('samba', ['--version'], { encoding: 'utf8' }).trim();
  const key = createHash('sha256')
    .update(JSON.stringify([version, PROVISION_ARGS]))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), `portcullis-samba-dc-template-${key}`);
  if (existsSync(join(dir, 'private', 'sam.ldb'))) return { dir, provisionMs: 0 };
  const scratch = mkdtempSync(join(tmpdir(), 'samba-provision-'));
  try {
    const began = Date.now();
    await run('samba-tool', ['domain', 'provision', `--targetdir=${join(scratch, 'dc')}`, ...PROVISION_ARGS]);
    const provisionMs = Date.now() - began;
    try {
      renameSync(join(scratch, 'dc'), dir);
    } catch (error) {
      // Another process put its template in place first: the same domain, use it.
      if (!existsSync(join(dir, 'private', 'sam.ldb'))) throw error;
    }
    return { dir, provisionMs };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function startSambaDc(): Promise<SambaDc> {
  const dir = mkdtempSync(join(tmpdir(), 'samba-dc-'));
  const n = freeSubnet();
  const [ns, hostSide, nsSide] = [`pc-samba-${n}`, `pcs${n}h`, `pcs${n}n`];
  const address = `10.213.${n}.2`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  const removeNamespace = () => {
    for (const args of [
      ['link', 'del', hostSide],
      ['netns', 'del', ns],
    ])
      try {
        ip(...args);
      } catch {
        // Already gone.
      }
  };
  let child: ChildProcess | undefined;
  // A test process that ends without stop() leaves neither the server nor the namespace behind.
  const onExit = () => {
    child?.kill('SIGKILL');
    removeNamespace();
  };
  process.once('exit', onExit);
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide);
    ip('link', 'set', nsSide, 'netns', ns);
    ip('addr', 'add', `10.213.${n}.1/30`, 'dev', hostSide);
    ip('link', 'set', hostSide, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/30`, 'dev', nsSide);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', nsSide, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    const tls = throwAwayCa(dir, address);
    chmodSync(tls.key, 0o600);

    const began = Date.now();
    const target = join(dir, 'dc');
    const template = await provisionedTemplate();
    // A copy of its own: the DC writes its databases, never the template's.
    execFileSync('cp', ['-a', template.dir, target], { stdio: 'pipe' });
    const provisionMs = template.provisionMs;
    const copyMs = Date.now() - began - provisionMs;

    const conf = join(dir, 'smb.conf');
    writeFileSync(
      conf,
      `[global]
	netbios name = DC1
	realm = ${REALM}
	workgroup = CORP
	server role = active directory domain controller
	server services = ldap
	interfaces = ${address}
	bind interfaces only = yes
	private dir = ${target}/private
	lock directory = ${target}
	state directory = ${target}/state
	cache directory = ${target}/cache
	binddns dir = ${target}/bind-dns
	pid directory = ${target}
	log file = ${dir}/samba.log
	logging = file
	tls enabled = yes
	tls keyfile = ${tls.key}
	tls certfile = ${tls.cert}
	tls cafile = ${tls.ca}
	# Samba accepts the previous password for an hour after a change (NTLM's grace, which Windows gives no LDAP bind).
	old password allowed period = 0
`,
    );
    // `ip netns exec` execs samba in place: the PID spawned is the server's. One process (-M single), stopped by it.
    child = spawn('ip', ['netns', 'exec', ns, 'samba', '--foreground', '--no-process-group', '-M', 'single', '-s', conf], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child!.on('exit', () => resolve()));
    await untilListening({ name: 'samba', child, output: () => output + safeRead(join(dir, 'samba.log')) }, address, 636, 60_000);

    const url = `ldaps://${address}:636`;
    const adminDn = `CN=Administrator,CN=Users,${AD_BASE}`;
    const env = { ...process.env, LDAPTLS_CACERT: tls.ca };
    const modify = (ldif: string, add = false) => {
      execFileSync(add ? 'ldapadd' : 'ldapmodify', ['-x', '-H', url, '-D', adminDn, '-w', ADMIN_PASSWORD], { input: ldif, stdio: 'pipe', env });
    };
    const serviceDn = `CN=portcullis,CN=Users,${AD_BASE}`;
    modify(
      `dn: OU=Staff,${AD_BASE}
objectClass: organizationalUnit
ou: Staff

dn: OU=Groups,${AD_BASE}
objectClass: organizationalUnit
ou: Groups

dn: ${serviceDn}
objectClass: user
sAMAccountName: portcullis
unicodePwd:: ${unicodePwd(SERVICE_PASSWORD)}
userAccountControl: 66048
`,
      true,
    );
    // Account Operators may reset ordinary users' passwords (write-back of a reset); a minimum password age of 0 lets
    // a person change a password twice in a test.
    modify(
      `dn: CN=Account Operators,CN=Builtin,${AD_BASE}\nchangetype: modify\nadd: member\nmember: ${serviceDn}\n\ndn: ${AD_BASE}\nchangetype: modify\nreplace: minPwdAge\nminPwdAge: 0\n`,
    );
    const server = child;
    return {
      url,
      address,
      caPem: readFileSync(tls.ca, 'utf8'),
      baseDn: AD_BASE,
      adminDn,
      adminPassword: ADMIN_PASSWORD,
      serviceDn,
      servicePassword: SERVICE_PASSWORD,
      provisionMs,
      copyMs,
      modify,
      bind(dn, password) {
        try {
          // An LDAPS search bound as `dn` (Samba answers no Who am I?, RFC 4532).
          execFileSync('ldapsearch', ['-x', '-H', url, '-D', dn, '-w', password, '-s', 'base', '-b', '', '1.1'], { stdio: 'pipe', env });
          return 'ok';
        } catch (error) {
          return String((error as { stderr?: Buffer }).stderr ?? error);
        }
      },
      async stop() {
        if (server.exitCode === null && server.signalCode === null) {
          server.kill('SIGTERM');
          await exited;
        }
        removeNamespace();
        process.removeListener('exit', onExit);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    removeNamespace();
    process.removeListener('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
