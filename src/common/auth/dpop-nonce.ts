import { hkdfSync } from 'node:crypto';
import type { SecretHasher } from '../crypto/secret-hasher.js';

/** Seconds per nonce step, and the steps around now that are accepted (oidc-provider's helpers/challenge.js). */
const STEP_SECONDS = 60;
const ACCEPTED_STEPS = [-2, -1, 0, 1, 2];
/** The HKDF info oidc-provider uses for DPoP nonces. */
const INFO = 'DPoP';

/**
 * The secret of DPoP server nonces (RFC 9449 §8), derived from the master key: the same in every process and
 * every provider rebuild, so a nonce issued by one process is accepted by all (docs/product-rules.md, "Running it").
 */
export function dpopNonceSecret(hasher: SecretHasher): Buffer {
  return Buffer.from(hasher.hash('portcullis/oidc/dpop-nonce/v1'), 'base64url');
}

/**
 * DPoP server nonces, computed exactly as oidc-provider computes them from `features.dPoP.nonceSecret`
 * (helpers/challenge.js: HKDF-SHA256 of the secret, salted with the 64-bit number of the current minute;
 * the next minute's value is handed out, two minutes either side are accepted). The token endpoint and
 * userinfo (oidc-provider) and the admin API and SCIM (bearer.strategy.ts) then share one nonce: a client
 * that got it from the token endpoint uses it at every resource of this origin, as openid-client does.
 * oidc-provider keeps its implementation internal (no export), so it is repeated here; test/oidc/dpop.test.ts
 * fails if the two ever disagree.
 */
export class DpopNonces {
  constructor(
    private readonly secret: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  /** The nonce to hand out now (RFC 9449 §8.1, the `DPoP-Nonce` header). */
  next(): string {
    return this.at(this.step() + 1);
  }

  /** Whether a proof's nonce is one this instance handed out within the window. */
  accepts(nonce: unknown): boolean {
    if (typeof nonce !== 'string') return false;
    const step = this.step();
    // Every candidate is compared, in constant time per candidate (the nonces are not secret, but cheap to do right).
    return ACCEPTED_STEPS.map((d) => this.at(step + d)).reduce((found, value) => equal(value, nonce) || found, false);
  }

  private step(): number {
    return Math.floor(this.now() / 1000 / STEP_SECONDS);
  }

  private at(step: number): string {
    const salt = Buffer.alloc(8);
    salt.writeBigUInt64BE(BigInt(step));
    return Buffer.from(hkdfSync('sha256', this.secret, salt, INFO, 32)).toString('base64url');
  }
}

function equal(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
