import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';

/** The oidc_payloads model of a used assertion; oidc-provider never reads it, the purge removes it. */
const MODEL = 'JwtAssertionUse';

/**
 * Remembers which JWT-profile assertions were used, so that one is accepted once (RFC 7523 §3: "The
 * authorization server MAY ensure that JWTs are not replayed by maintaining the set of used "jti"
 * values for the length of time for which the JWT would be considered valid").
 *
 * The set is rows of oidc_payloads keyed by (issuer, jti), kept until the assertion could no longer be
 * accepted anyway: in the database, so every process of an instance (WORKERS, several hosts) shares
 * it. The primary key makes the check and the record one atomic insert: of two requests racing with
 * the same assertion, exactly one inserts.
 */
export class AssertionReplayGuard {
  constructor(private readonly uow: UnitOfWork) {}

  /** Records the use of (issuer, jti) until `usableUntilMs`; false when it was already used. */
  async firstUse(issuer: string, jti: string, usableUntilMs: number): Promise<boolean> {
    const key = createHash('sha256').update(`${issuer}\n${jti}`).digest('hex');
    // A row whose assertion can no longer be accepted does not block a new one that reuses its jti.
    await this.uow.write('DELETE FROM oidc_payloads WHERE model = ? AND id_hash = ? AND expires_at <= ?', [MODEL, key, Date.now()]);
    try {
      await this.uow.write(
        'INSERT INTO oidc_payloads (model, id_hash, payload, grant_id, uid, user_code, expires_at, consumed_at) VALUES (?, ?, ?, NULL, NULL, NULL, ?, NULL)',
        [MODEL, key, JSON.stringify({ iss: issuer }), usableUntilMs],
      );
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
}
