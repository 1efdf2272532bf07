import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the Apache test harnesses share (mod_auth_openidc in test/oidc, mod_auth_mellon in test/saml): Debian's
 * paths, the CI switch, the server section every configuration starts with, and running apache2 in the
 * foreground from a configuration of its own in a temporary directory.
 */

/** Where Debian's apache2 package puts the server and its modules. */
export const APACHE_BINARY = '/usr/sbin/apache2';
export const APACHE_MODULES = '/usr/lib/apache2/modules';

export function inCi(): boolean {
  const ci = process.env.CI ?? '';
  return ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** Of Apache and the given modules (name → file under APACHE_MODULES), what is not installed on this machine. */
export function missingApacheFiles(moduleFiles: Record<string, string>): string[] {
  const needed = [APACHE_BINARY, ...Object.values(moduleFiles).map((file) => join(APACHE_MODULES, file))];
  return needed.filter((path) => !existsSync(path));
}

/**
 * The top of httpd.conf: everything the server writes (pid, error log, mutexes) stays in `dir`, only the given
 * modules are loaded, and a few prefork children serve (mod_cgi needs a non-threaded MPM).
 */
export function apacheServerBasics(dir: string, moduleFiles: Record<string, string>): string {
  const runsAsRoot = process.getuid?.() === 0;
  return `ServerRoot "${dir}"
ServerName 127.0.0.1
PidFile "${dir}/httpd.pid"
DefaultRuntimeDir "${dir}"
ErrorLog "${dir}/error.log"
LogLevel warn
${Object.entries(moduleFiles)
  .map(([name, file]) => `LoadModule ${name} ${APACHE_MODULES}/${file}`)
  .join('\n')}
${runsAsRoot ? 'User www-data\nGroup www-data' : '# not root: Apache serves as the user that started it'}
StartServers 2
MinSpareServers 1
MaxSpareServers 4
MaxRequestWorkers 8
`;
}

export interface RunningApache {
  /** The server's output and error log so far, for assertion messages. */
  errorLog(): string;
  /** SIGTERM to the process group (SIGKILL after 5 s), then the directory is removed. */
  stop(): Promise<void>;
}

/**
 * Runs `apache2 -f <config> -DFOREGROUND` in a process group of its own and waits until each of `readyUrls`
 * answers 200; `dir` (the configuration's directory) is removed when it stops, or when it fails to start.
 */
export async function runApache(dir: string, config: string, readyUrls: string[]): Promise<RunningApache> {
  // Its own process group, so stopping it reaches the prefork children too.
  const child = spawn(APACHE_BINARY, ['-f', config, '-DFOREGROUND'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' },
  });
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
  try {
    for (const url of readyUrls) await untilAnswering(child, url, errorLog);
  } catch (error) {
    await stop();
    throw error;
  }
  return { errorLog, stop };
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
