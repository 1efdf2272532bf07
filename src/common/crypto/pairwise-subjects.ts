import { createHmac } from 'node:crypto';
import type { SecretHasher } from './secret-hasher.js';

/** Who a pairwise identifier is for: an OIDC sector (a redirect URIs' host) or a SAML service provider's entity id. */
export type PairwiseAudience = { kind: 'oidc-sector'; host: string } | { kind: 'saml-sp'; entityId: string };

/**
 * Pairwise identifiers (OIDC Core §8.1; SAML Core §8.3.7: persistent identifiers "MUST be constructed using
 * pseudo-random values that have no discernible correspondence with the subject's actual identifier"): one user is a
 * different, stable value at each audience, so two relying parties cannot correlate the person, and neither learns
 * the user id. HMAC-SHA256 under a key derived from the master key (as the DPoP nonce secret is,
 * src/common/auth/dpop-nonce.ts): the same in every process, and a value cannot be traced back to a user without the
 * key. docs/oauth-profiles.md "Pairwise subjects", docs/saml.md "NameID".
 */
export class PairwiseSubjects {
  private readonly key: Buffer;

  constructor(hasher: SecretHasher) {
    this.key = Buffer.from(hasher.hash('portcullis/pairwise-subject/v1'), 'base64url');
  }

  /**
   * The `sub` an OIDC client is given (OIDC Core §8): the user id for a public client; for a pairwise one, the value
   * of its sector, the host of its redirect URIs (§8.1) — the host (with its port) of the first, as oidc-provider takes
   * it; the application rules make them all share one (src/users/oidc-application.rules.ts).
   */
  subjectFor(client: { subjectType?: string; redirectUris: readonly string[] }, userId: string): string {
    if (client.subjectType !== 'pairwise') return userId;
    return this.of({ kind: 'oidc-sector', host: oidcSectorOf(client.redirectUris) }, userId);
  }

  /** 43 characters of base64url (256 bits). The audience's kind is hashed too: an OIDC sector never equals an SP. */
  of(audience: PairwiseAudience, userId: string): string {
    const sector = audience.kind === 'oidc-sector' ? audience.host : audience.entityId;
    return createHmac('sha256', this.key).update(`${audience.kind}\0${sector}\0${userId}`, 'utf8').digest('base64url');
  }
}

/** OIDC Core §8.1: without a sector_identifier_uri, the sector identifier is the host of the redirect URIs. */
export function oidcSectorOf(redirectUris: readonly string[]): string {
  const [first] = redirectUris;
  if (first === undefined) throw new Error('a pairwise client has redirect URIs (src/users/oidc-application.rules.ts)');
  return new URL(first).host;
}
