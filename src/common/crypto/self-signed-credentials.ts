// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { onFirstUse } from '../modules/on-first-use.js';

/**
 * @peculiar/x509 with its crypto provider, loaded at the first key made rather than at start-up: only SAML keys need it,
 * and its parsers and schemas held 2.4 MB of every process's heap (BENCHMARKS.md, "Performance goals, memory").
 */
const x509Library = onFirstUse<typeof X509>('@peculiar/x509', (x509) => x509.cryptoProvider.set(webcrypto as unknown as Crypto));

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

/**
 * An RSA key pair (2048 bits) and a self-signed certificate for it, valid ten years: a SAML identity, published in
 * metadata — this SP's per upstream IdP (docs/federation.md) and this IdP's signing key (docs/saml.md). Self-signed is what
 * SAML metadata exchange expects (SAML Metadata Interoperability: keys, not a PKI).
 */
export async function newSelfSignedCredentials(commonName: string): Promise<{ privateKeyPem: string; certificatePem: string }> {
  const keys = (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const x509 = x509Library();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: `CN=${commonName.replace(/[,+="<>#;\\]/g, ' ')}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 10 * 365 * 24 * 3600 * 1000),
    signingAlgorithm: RSA,
    keys,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKeyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { privateKeyPem, certificatePem: certificate.toString('pem') };
}
