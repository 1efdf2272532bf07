/**
 * What the schedule reads of a key. The OIDC signing keys (src/oidc/keys) and the SAML signing keys (src/saml/keys)
 * follow the same schedule, each in its own module's table, so the schedule sits below both.
 */
export interface ScheduledKey {
  createdAt: Date;
  signsFrom: Date;
  retiredAt: Date | null;
}

/** Keys rotate every 90 days and on demand (README, SIGNING_ALG). */
export const ROTATION_INTERVAL_MS = 90 * 24 * 3600 * 1000;

/**
 * How long a scheduled key is published before it signs. It must exceed how long relying parties cache
 * JWKS: our `max-age=300`, but also clients that keep a JWKS for their own interval (mod_auth_openidc
 * refreshes hourly by default), so that none meets a `kid` it does not know (RFC 7517 §4.5).
 */
export const NEXT_KEY_LEAD_MS = 24 * 3600 * 1000;

/** The key that signs at `now`: of the keys whose time has come and that are not retired, the newest. */
export function signerAt<K extends ScheduledKey>(keys: K[], now: Date): K | undefined {
  const t = now.getTime();
  return keys
    .filter((k) => k.signsFrom.getTime() <= t && (!k.retiredAt || k.retiredAt.getTime() > t))
    .sort((a, b) => b.signsFrom.getTime() - a.signsFrom.getTime() || b.createdAt.getTime() - a.createdAt.getTime())[0];
}

/**
 * A key published ahead of its time: it signs later, unless an emergency rotation withdraws it. Only a
 * scheduled key signs later than it was created; a key created to sign at once may carry a time just
 * past another process's clock, and already signs there.
 */
export function isScheduled(key: ScheduledKey, now: Date): boolean {
  return !key.retiredAt && key.signsFrom.getTime() > key.createdAt.getTime() && key.signsFrom.getTime() > now.getTime();
}

/** The published keys in the order oidc-provider gets them: the signer first, then the newest first. */
export function signerFirst<K extends ScheduledKey>(keys: K[], now: Date): { signer: K | undefined; ordered: K[] } {
  const signer = signerAt(keys, now);
  const others = keys
    .filter((k) => k !== signer)
    .sort((a, b) => b.signsFrom.getTime() - a.signsFrom.getTime() || b.createdAt.getTime() - a.createdAt.getTime());
  return { signer, ordered: signer ? [signer, ...others] : others };
}
