import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APACHE_BINARY, APACHE_MODULES, APACHE_MODULE_FILES, LOGGED_OUT_PATH, writeApacheConfig } from './apache-config.js';
import type { ClientAuth } from './apache-config.js';

const INSTALL = 'apt-get install -y apache2 libapache2-mod-auth-openidc';

/** What of Debian's Apache and mod_auth_openidc is not installed on this machine, if anything. */
export function missingApache(): string[] {
  const needed = [APACHE_BINARY, ...Object.values(APACHE_MODULE_FILES).map((file) => join(APACHE_MODULES, file))];
  return needed.filter((path) => !existsSync(path));
}

export function inCi(): boolean {
  const ci = process.env.CI ?? '';
  return ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * A newcomer running `npm test` without Apache gets a skipped suite and a notice saying what to install;
 * in CI (which installs the packages, .ci/run) the suite runs and fails on what is missing.
 */
export function apacheSkipReason(): string | false {
  const missing = missingApache();
  if (missing.length === 0 || inCi()) return false;
  const reason = `Apache with mod_auth_openidc is not installed (missing ${missing.join(', ')}); install it with \`${INSTALL}\``;
  console.log(`# SKIPPED: ${reason}`);
  return reason;
}

export interface ApacheRelyingParty {
  /** `http://127.0.0.1:<port>` of each virtual host, in the order the clients were given. */
  origins: string[];
  /** The server's error log so far, for assertion messages. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts Apache in the foreground with a configuration of its own in a temporary directory, one virtual
 * host (and port) per client, and waits until every host answers.
 */
export async function startApache(issuer: string, clients: ClientAuth[], ports: number[]): Promise<ApacheRelyingParty> {
  const missing = missingApache();
  if (missing.length > 0) throw new Error(`Apache with mod_auth_openidc is required in CI but missing: ${missing.join(', ')} (${INSTALL})`);
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-apache-'));
  const hosts = clients.map((auth, i) => ({ auth, port: ports[i] }));
  const config = writeApacheConfig({ dir, issuer, hosts, passphrase: randomBytes(24).toString('base64url') });
  // Its own process group, so stopping it reaches the prefork children too.
  const child = spawn(APACHE_BINARY, ['-f', config, '-DFOREGROUND'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  const errorLog = () => output + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  const origins = hosts.map((host) => `http://127.0.0.1:${host.port}`);
  try {
    for (const origin of origins) await untilAnswering(child, `${origin}${LOGGED_OUT_PATH}`, errorLog);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origins, errorLog, stop };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function untilAnswering(child: ChildProcess, url: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`apache2 exited during start-up:\n${log()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`apache2 did not answer ${url} within 20 s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
