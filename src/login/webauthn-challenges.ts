import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretHasher } from '../common/crypto/secret-hasher.js';

export type CeremonyPurpose = 'sign-in' | 'register';

/**
 * WebAuthn challenges without server state: 16 random bytes followed by 16 bytes of a keyed hash of
 * them, the interaction's uid and the ceremony's purpose. A response is accepted only with a challenge
 * this instance issued for this interaction and ceremony (WebAuthn §13.4.3); rendering the login page
 * writes nothing, and every process checks what any other issued.
 */
export class WebAuthnChallenges {
  constructor(private readonly hasher: SecretHasher) {}

  issue(uid: string, purpose: CeremonyPurpose): Uint8Array<ArrayBuffer> {
    const nonce = randomBytes(16);
    return new Uint8Array(Buffer.concat([nonce, this.mac(uid, purpose, nonce)]));
  }

  /** For @simplewebauthn/server's `expectedChallenge`: the base64url challenge of the client data. */
  checker(uid: string, purpose: CeremonyPurpose): (challenge: string) => boolean {
    return (challenge) => {
      const bytes = Buffer.from(challenge, 'base64url');
      if (bytes.length !== 32) return false;
      return timingSafeEqual(bytes.subarray(16), this.mac(uid, purpose, bytes.subarray(0, 16)));
    };
  }

  private mac(uid: string, purpose: CeremonyPurpose, nonce: Buffer): Buffer {
    return Buffer.from(this.hasher.hash(`webauthn:${purpose}:${uid}:${nonce.toString('base64url')}`), 'base64url').subarray(0, 16);
  }
}
