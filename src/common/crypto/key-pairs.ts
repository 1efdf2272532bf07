import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

/**
 * An RSA 2048 key pair whose private half is handed to its owner once (application keys for
 * private_key_jwt, machine keys for the JWT profile grant). PKCS#1 PEM, as ZITADEL's key files carry,
 * so existing SDKs load them unchanged; only the SPKI public half is stored.
 */
export async function generateRsaKeyPair(): Promise<{ privateKeyPem: string; publicKeyPem: string }> {
  const { privateKey, publicKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}
