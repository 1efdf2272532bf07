/** A metadata document is kept at least this long, whatever its headers say (`no-store` and `no-cache` too). */
export const MIN_DOCUMENT_CACHE_MS = 5 * 60_000;
/** …and at most this long, so a changed or withdrawn document counts within a day. */
export const MAX_DOCUMENT_CACHE_MS = 24 * 3_600_000;

/**
 * How long a fetched metadata document is used (docs/agents.md, "Client ID Metadata Documents"): its HTTP caching
 * lifetime (RFC 9111 §4.2.1: `max-age`, else `Expires` against `Date` or now), clamped to [5 min, 24 h]. `no-store`
 * and `no-cache` would mean a fetch for every request, which a client could use to make this instance fetch at its
 * pace: they count as the minimum.
 */
export function documentCacheMs(headers: Headers, now: number): number {
  const control = (headers.get('cache-control') ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache)\b/.test(control)) return MIN_DOCUMENT_CACHE_MS;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(control)?.[1];
  let lifetime: number | undefined;
  if (maxAge !== undefined) lifetime = Number(maxAge) * 1000;
  else {
    const expires = Date.parse(headers.get('expires') ?? '');
    const date = Date.parse(headers.get('date') ?? '');
    if (!Number.isNaN(expires)) lifetime = expires - (Number.isNaN(date) ? now : date);
  }
  return Math.min(MAX_DOCUMENT_CACHE_MS, Math.max(MIN_DOCUMENT_CACHE_MS, lifetime ?? MIN_DOCUMENT_CACHE_MS));
}
