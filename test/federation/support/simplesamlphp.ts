import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/service.js';
import { makeKeyPair, php, simpleSamlPhpDir, startPhpServer, writeSimpleSamlPhpConfig } from '../../support/simplesamlphp-base.js';

export { simpleSamlPhpMissing, simpleSamlPhpSkipReason } from '../../support/simplesamlphp-base.js';

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
  /** The SP's single logout endpoint (HTTP-Redirect): logout messages both ways, signed and checked. */
  sloUrl?: string;
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

/**
 * SimpleSAMLphp as an organization's SAML IdP, under PHP's built-in server on a free port with a configuration
 * written to a temp dir: exampleauth users, a persistent NameID from `uid`, a key pair made by openssl, every
 * assertion signed. Stopped by PID.
 */
export async function startSimpleSamlPhp(users: SamlUsers): Promise<SimpleSamlPhp> {
  const dir = simpleSamlPhpDir('portcullis-ssp-');
  makeKeyPair(dir, 'idp', 'simplesamlphp-test');
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  writeSimpleSamlPhpConfig(dir, baseUrl, port, {
    'enable.saml20-idp': 'true',
    'module.enable': `['exampleauth' => true, 'core' => true, 'saml' => true]`,
  });
  const accounts = Object.entries(users)
    .map(([name, user]) => `    ${php(`${name}:${user.password}`)} => ${phpArray(user.attributes)},`)
    .join('\n');
  writeFileSync(
    join(dir, 'config/authsources.php'),
    `<?php\n$config = [\n  'admin' => ['core:AdminPassword'],\n  'example-userpass' => ['exampleauth:UserPass',\n${accounts}\n  ],\n];\n`,
  );
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
  'sign.logout' => true,
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
  ${sp.sloUrl ? `'SingleLogoutService' => [['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'Location' => ${php(sp.sloUrl)}]], 'sign.logout' => true, 'validate.logout' => true,` : ''}
  ${sp.mfa ? `'authproc' => [20 => ['class' => 'saml:AuthnContextClassRef', 'AuthnContextClassRef' => ${php(REFEDS_MFA)}]],` : ''}
];`,
        )
        .join('\n')}\n`,
    );
  writeSps();
  const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
  const server = await startPhpServer({ dir, port, baseUrl, readyUrl: metadataUrl });
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
    close: () => server.stop(),
  };
}

function phpArray(attributes: Record<string, string[]>): string {
  return `[${Object.entries(attributes)
    .map(([name, values]) => `${JSON.stringify(name)} => [${values.map((v) => JSON.stringify(v).replace(/\$/g, '\\$')).join(', ')}]`)
    .join(', ')}]`;
}
