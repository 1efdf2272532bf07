import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { TestService } from '../../support/service.js';

/** RFC 7523 §2.1: the JWT bearer grant type, Portcullis's JWT profile grant. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface MachineKey {
  userId: string;
  keyId: string;
  /** The private key (PKCS#1 PEM) as the management API hands it out. */
  key: string;
}

/** A machine key of a machine user, added through the management API as an administrator does. */
export async function createMachineKey(svc: TestService, orgId: string, userId: string): Promise<MachineKey> {
  const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${userId}/keys`, { token: svc.adminToken, body: {} });
  assert.equal(res.status, 201, res.text);
  return { userId, keyId: res.body.keyId, key: res.body.keyDetails.key };
}

/** A JWT profile assertion (iss = sub = the machine user, aud = the issuer) signed with the machine key. */
export function jwtProfileAssertion(svc: TestService, machine: MachineKey): Promise<string> {
  return new SignJWT({})
    .setJti(randomUUID())
    .setProtectedHeader({ alg: 'RS256', kid: machine.keyId })
    .setIssuer(machine.userId)
    .setSubject(machine.userId)
    .setAudience(svc.config.publicUrl)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(createPrivateKey(machine.key));
}
