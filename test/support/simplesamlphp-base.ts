import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inCi } from '../oidc/support/apache-server.js';

/**
 * What the SimpleSAMLphp harnesses share: test/federation/support/simplesamlphp.ts (SimpleSAMLphp as an upstream IdP of
 * Portcullis) and test/saml/support/simplesamlphp-sp.ts (SimpleSAMLphp as an SP of Portcullis' IdP). Debian's
 * SimpleSAMLphp 1.19 (package simplesamlphp, with php-xml and php-mbstring), as `.ci/run` installs it, runs under
 * PHP's built-in server on a free port with its configuration in a temp dir (SIMPLESAMLPHP_CONFIG_DIR), stopped by PID.
 */
export const SIMPLESAMLPHP = '/usr/share/simplesamlphp';
export const SIMPLESAMLPHP_WWW = `${SIMPLESAMLPHP}/www`;

/** Outside CI, a reason to skip the SAML suites when SimpleSAMLphp is missing (with CI=true they fail instead). */
export function simpleSamlPhpSkipReason(): string | false {
  const missing = simpleSamlPhpMissing();
  if (!missing || inCi()) return false;
  console.log(`# SKIPPED: ${missing}`);
  return missing;
}

/** Why SimpleSAMLphp cannot run here, or undefined when it can. */
export function simpleSamlPhpMissing(): string | undefined {
  if (!existsSync(SIMPLESAMLPHP_WWW)) return `${SIMPLESAMLPHP_WWW} is missing (apt-get install -y simplesamlphp php-xml php-mbstring)`;
  try {
    execFileSync('php', ['-r', 'exit(extension_loaded("dom") && extension_loaded("mbstring") ? 0 : 1);']);
  } catch {
    return 'php with the dom and mbstring extensions is missing (apt-get install -y php-xml php-mbstring)';
  }
  return undefined;
}

/** A PHP literal for a JSON value (strings, numbers, booleans, null, lists); `$` escaped for double quotes. */
export function php(value: unknown): string {
  return JSON.stringify(value).replace(/\$/g, '\\$');
}

/** A temp dir with SimpleSAMLphp's writable directories (config, metadata, cert, tmp, log, data, sessions, ...more). */
export function simpleSamlPhpDir(prefix: string, more: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const sub of ['config', 'metadata', 'cert', 'tmp', 'log', 'data', 'sessions', ...more]) mkdirSync(join(dir, sub));
  return dir;
}

/** A self-signed RSA 2048 key pair made by openssl: `<dir>/cert/<name>.key` and `<dir>/cert/<name>.crt`. */
export function makeKeyPair(dir: string, name: string, commonName: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, `cert/${name}.key`),
      '-out',
      join(dir, `cert/${name}.crt`),
      '-subj',
      `/CN=${commonName}`,
      '-days',
      '2',
    ],
    { stdio: 'ignore' },
  );
}

/**
 * Writes `<dir>/config/config.php`: the directories of the temp dir, file logging at WARNING, PHP sessions in
 * `<dir>/sessions`, flat-file metadata, plus `extra` (option name => PHP expression) for the role.
 */
export function writeSimpleSamlPhpConfig(dir: string, baseUrl: string, port: number, extra: Record<string, string>, preamble = ''): void {
  const options: Record<string, string> = {
    baseurlpath: php(`${baseUrl}/`),
    certdir: php(`${dir}/cert/`),
    metadatadir: php(`${dir}/metadata/`),
    tempdir: php(`${dir}/tmp`),
    loggingdir: php(`${dir}/log/`),
    datadir: php(`${dir}/data/`),
    'logging.handler': `'file'`,
    'logging.level': 'SimpleSAML\\Logger::WARNING',
    secretsalt: `'portcullis-test-salt-${port}'`,
    'auth.adminpassword': `'portcullis-test-admin-${port}'`,
    'admin.protectindexpage': 'false',
    technicalcontact_email: `'na@example.org'`,
    timezone: `'UTC'`,
    'store.type': `'phpsession'`,
    'session.phpsession.savepath': php(`${dir}/sessions`),
    'language.default': `'en'`,
    'metadata.sources': `[['type' => 'flatfile']]`,
    ...extra,
  };
  writeFileSync(
    join(dir, 'config/config.php'),
    `<?php\n${preamble}$config = [\n${Object.entries(options)
      .map(([name, value]) => `  ${php(name)} => ${value},`)
      .join('\n')}\n];\n`,
  );
}

export interface PhpServer {
  child: ChildProcess;
  /** Ends the server by its PID (once) and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * `php -S 127.0.0.1:<port> -t <SimpleSAMLphp's www> [router]` with SIMPLESAMLPHP_CONFIG_DIR=<dir>/config, ready when
 * `readyUrl` answers 200 (about 5 s at most).
 */
export async function startPhpServer(options: { dir: string; port: number; baseUrl: string; readyUrl: string; router?: string }): Promise<PhpServer> {
  const { dir, port, baseUrl, readyUrl, router } = options;
  const child: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', SIMPLESAMLPHP_WWW, ...(router ? [router] : [])], {
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, 'config') },
    stdio: 'ignore',
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    const ready = await fetch(readyUrl)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ready) break;
    if (i > 100 || child.exitCode !== null) {
      const exitCode = child.exitCode;
      await stop();
      throw new Error(`SimpleSAMLphp did not start on ${baseUrl} (exit ${exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, stop };
}
