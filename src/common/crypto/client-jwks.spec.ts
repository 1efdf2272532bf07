import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkClientJwks, verificationKeys } from './client-jwks.js';

const publicJwk = ({ publicKey }: { publicKey: KeyObject }) => publicKey.export({ format: 'jwk' }) as Record<string, string>;

describe('client key sets', () => {
  it('accepts RSA of 2048 bits, EC on P-256 and P-384 and Ed25519, keeping only the members it reads', () => {
    const keys = [
      { ...publicJwk(generateKeyPairSync('rsa', { modulusLength: 2048 })), kid: 'rsa', alg: 'PS256', x5c: ['MIIB'], key_ops: ['verify'] },
      { ...publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-256' })), kid: 'p256', use: 'sig' },
      { ...publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-384' })), kid: 'p384', alg: 'ES384' },
      { ...publicJwk(generateKeyPairSync('ed25519')), kid: 'ed', alg: 'EdDSA' },
    ];
    const { jwks, problems } = checkClientJwks({ keys }, 'jwks');
    assert.deepEqual(problems, []);
    assert.deepEqual(jwks!.keys.map(Object.keys), [
      ['kty', 'kid', 'alg', 'n', 'e'],
      ['kty', 'kid', 'use', 'crv', 'x', 'y'],
      ['kty', 'kid', 'alg', 'crv', 'x', 'y'],
      ['kty', 'kid', 'alg', 'crv', 'x'],
    ]);
  });

  it('refuses Ed448, secp256k1 and a member that is not a string, naming the member', () => {
    const fields = (keys: object[]) => checkClientJwks({ keys }, 'jwks').problems.map((p) => p.field);
    assert.deepEqual(fields([publicJwk(generateKeyPairSync('ed448'))]), ['jwks.keys.0.crv']);
    assert.deepEqual(fields([{ kty: 'EC', crv: 'secp256k1', x: 'AA', y: 'AA' }]), ['jwks.keys.0.crv']);
    assert.deepEqual(fields([{ ...publicJwk(generateKeyPairSync('ed25519')), kid: 7 }]), ['jwks.keys.0.kid']);
  });

  it('hands oidc-provider Ed25519 keys without alg, so EdDSA and Ed25519 (RFC 9864) both verify; other keys as given', () => {
    const ed = { ...publicJwk(generateKeyPairSync('ed25519')), kid: 'ed' };
    const es = { ...publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-256' })), kid: 'es', alg: 'ES256' };
    const given = [{ ...ed, alg: 'EdDSA' }, { ...ed, kid: 'ed2', alg: 'Ed25519' }, es];
    assert.deepEqual(verificationKeys(given), [ed, { ...ed, kid: 'ed2' }, es]);
    assert.equal(given[0]!.alg, 'EdDSA', 'the stored set is not changed');
  });
});
