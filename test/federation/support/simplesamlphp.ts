import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/service.js';
import { inCi } from '../../oidc/support/apache-server.js';

/** Debian's SimpleSAMLphp (package simplesamlphp, with php-xml and php-mbstring), as `.ci/run` installs it. */
const WWW = '/usr/share/simplesamlphp/www';
const REFEDS_MFA = 'https://refeds.org/profile/mfa';

/** A person of the IdP: password and SAML attributes (each a list of values). */
export type SamlUsers = Record<string, { password: string; attributes: Record<string, string[]> }>;

export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
  /** Base64 DER of the SP's certificate, to check its signed AuthnRequests. */
  certificate: string;
  /** The IdP says REFEDS MFA (AuthnContextClassRef) in every assertion for this SP. */
  mfa?: boolean;
  /** The IdP encrypts its assertions for this SP (with the certificate above). */
  encrypt?: boolean;
}

export interface SimpleSamlPhp {
  /** `http://localhost:<port>`: another cookie host than the service's 127.0.0.1. */
  baseUrl: string;
  metadataUrl: string;
  entityId: string;
  /** The IdP's own signing key and certificate (PEM): a test may act as the IdP and sign a crafted assertion. */
  signingKeyPem: string;
  signingCertPem: string;
  /** Trusts an SP (its metadata is re-read on every request: no restart). */
  addServiceProvider(sp: SamlServiceProvider): void;
  close(): Promise<void>;
}

/** Outside CI, a reason to skip the SAML suites when SimpleSAMLphp is missing (with CI=true they fail instead). */
export function simpleSamlPhpSkipReason(): string | false {
  const missing = simpleSamlPhpMissing();
  if (!missing || inCi()) return false;
  console.log(`# SKIPPED: ${missing}`);
  return missing;
}

/** Why SimpleSAMLphp cannot run here, or undefined when it can. */
export function simpleSamlPhpMissing(): string | undefined {
  if (!existsSync(WWW)) return `${WWW} is missing (apt-get install -y simplesamlphp php-xml php-mbstring)`;
  try {
    execFileSync('php', ['-r', 'exit(extension_loaded("dom") && extension_loaded("mbstring") ? 0 : 1);']);
  } catch {
    return 'php with the dom and mbstring extensions is missing (apt-get install -y php-xml php-mbstring)';
  }
  return undefined;
}

/**
 * SimpleSAMLphp as an organization's SAML IdP, under PHP's built-in server on a free port with a configuration
 * written to a temp dir: exampleauth users, a persistent NameID from `uid`, a key pair made by openssl, every
 * assertion signed. Stopped by PID.
 */
export async function startSimpleSamlPhp(users: SamlUsers): Promise<SimpleSamlPhp> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-ssp-'));
  for (const sub of ['config', 'metadata', 'cert', 'tmp', 'log', 'data', 'sessions']) mkdirSync(join(dir, sub));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'cert/idp.key'), '-out', join(dir, 'cert/idp.crt'), '-subj', '/CN=simplesamlphp-test', '-days', '2'], { stdio: 'ignore' });
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const php = (value: unknown) => JSON.stringify(value).replace(/\$/g, '\\$');
  writeFileSync(
    join(dir, 'config/config.php'),
    `<?php
$config = [
  'baseurlpath' => ${php(`${baseUrl}/`)},
  'certdir' => ${php(`${dir}/cert/`)},
  'metadatadir' => ${php(`${dir}/metadata/`)},
  'tempdir' => ${php(`${dir}/tmp`)},
  'loggingdir' => ${php(`${dir}/log/`)},
  'datadir' => ${php(`${dir}/data/`)},
  'logging.handler' => 'file',
  'logging.level' => SimpleSAML\\Logger::WARNING,
  'secretsalt' => 'portcullis-test-salt-${port}',
  'auth.adminpassword' => 'portcullis-test-admin-${port}',
  'admin.protectindexpage' => false,
  'technicalcontact_email' => 'na@example.org',
  'timezone' => 'UTC',
  'enable.saml20-idp' => true,
  'store.type' => 'phpsession',
  'session.phpsession.savepath' => ${php(`${dir}/sessions`)},
  'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true],
  'language.default' => 'en',
  'metadata.sources' => [['type' => 'flatfile']],
];
`,
  );
  const accounts = Object.entries(users)
    .map(([name, user]) => `    ${php(`${name}:${user.password}`)} => ${phpArray(user.attributes)},`)
    .join('\n');
  writeFileSync(join(dir, 'config/authsources.php'), `<?php\n$config = [\n  'admin' => ['core:AdminPassword'],\n  'example-userpass' => ['exampleauth:UserPass',\n${accounts}\n  ],\n];\n`);
  writeFileSync(
    join(dir, 'metadata/saml20-idp-hosted.php'),
    `<?php
$metadata['__DYNAMIC:1__'] = [
  'host' => '__DEFAULT__',
  'privatekey' => 'idp.key',
  'certificate' => 'idp.crt',
  'auth' => 'example-userpass',
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'authproc' => [10 => ['class' => 'saml:PersistentNameID', 'attribute' => 'uid']],
  'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
];
`,
  );
  const sps: SamlServiceProvider[] = [];
  const writeSps = () =>
    writeFileSync(
      join(dir, 'metadata/saml20-sp-remote.php'),
      `<?php\n${sps
        .map(
          (sp) => `$metadata[${php(sp.entityId)}] = [
  'AssertionConsumerService' => ${php(sp.acsUrl)},
  'certData' => ${php(sp.certificate)},
  'validate.authnrequest' => true,
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  ${sp.encrypt ? `'assertion.encryption' => true,` : ''}
  ${sp.mfa ? `'authproc' => [20 => ['class' => 'saml:AuthnContextClassRef', 'AuthnContextClassRef' => ${php(REFEDS_MFA)}]],` : ''}
];`,
        )
        .join('\n')}\n`,
    );
  writeSps();
  const child: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', WWW], { env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, 'config') }, stdio: 'ignore' });
  const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
  for (let i = 0; ; i++) {
    const ready = await fetch(metadataUrl).then((r) => r.status === 200).catch(() => false);
    if (ready) break;
    if (i > 100 || child.exitCode !== null) {
      child.kill();
      throw new Error(`SimpleSAMLphp did not start on ${baseUrl} (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl,
    metadataUrl,
    entityId: metadataUrl,
    signingKeyPem: readFileSync(join(dir, 'cert/idp.key'), 'utf8'),
    signingCertPem: readFileSync(join(dir, 'cert/idp.crt'), 'utf8'),
    addServiceProvider(sp) {
      sps.push(sp);
      writeSps();
    },
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function phpArray(attributes: Record<string, string[]>): string {
  return `[${Object.entries(attributes)
    .map(([name, values]) => `${JSON.stringify(name)} => [${values.map((v) => JSON.stringify(v).replace(/\$/g, '\\$')).join(', ')}]`)
    .join(', ')}]`;
}
