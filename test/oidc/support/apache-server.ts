import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inCi, missingApacheFiles, runApache } from '../../support/apache.js';
import { APACHE_MODULE_FILES, LOGGED_OUT_PATH, writeApacheConfig } from './apache-config.js';
import type { ClientAuth } from './apache-config.js';

export { inCi };

const INSTALL = 'apt-get install -y apache2 libapache2-mod-auth-openidc';

/** What of Debian's Apache and mod_auth_openidc is not installed on this machine, if anything. */
export function missingApache(): string[] {
  return missingApacheFiles(APACHE_MODULE_FILES);
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
  const origins = hosts.map((host) => `http://127.0.0.1:${host.port}`);
  const { errorLog, stop } = await runApache(
    dir,
    config,
    origins.map((origin) => `${origin}${LOGGED_OUT_PATH}`),
  );
  return { origins, errorLog, stop };
}
