import { Logger } from '@nestjs/common';
import { checkClientJwks } from '../../common/crypto/client-jwks.js';
import type { ClientJwk } from '../../common/crypto/client-jwks.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';

/** A key set is a few kilobytes; a larger answer is no key set this instance should buffer. */
const MAX_BODY_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;
/** URLs remembered at once; past it the cache starts over (each URL is then fetched once more). */
const MAX_URLS = 1_000;
/** After a failed fetch the next request tries again this soon (or at the cache's end, if sooner). */
const RETRY_AFTER_FAILURE_MS = 10_000;

export interface RemoteClientKeysOptions {
  allowPrivateNetworks: boolean;
  /** How long keys read from a jwks_uri are used before it is read again (`CLIENT_JWKS_CACHE_MS`). */
  cacheMs: number;
}

interface Entry {
  until: number;
  keys: Promise<ClientJwk[]>;
}

/**
 * The keys applications serve at their `jwks_uri` (docs/oauth-profiles.md, "Client keys"), read by ClientStore and
 * handed to oidc-provider as the client's `jwks`: the provider never fetches a client's URL itself, so each read
 * follows the outbound address rules (outbound-fetch.ts: checked addresses, no redirects, a timeout, a size cap), its
 * keys pass the checks of inline keys, and the time a key set is kept is bounded by this cache alone, whatever the
 * answer's caching headers say. A URL that cannot be read, or serves a set that fails the checks, gives no keys: the
 * client's assertions and request objects are refused until a later read succeeds. One cache per process.
 */
export class RemoteClientKeys {
  private readonly logger = new Logger('ClientKeys');
  private readonly entries = new Map<string, Entry>();
  private readonly fetch: ReturnType<typeof outboundFetch>;

  constructor(private readonly options: RemoteClientKeysOptions) {
    this.fetch = outboundFetch({ allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: TIMEOUT_MS, maxBodyBytes: MAX_BODY_BYTES });
  }

  /** The keys served at `uri`, read at most once per cache period (concurrent callers share one read). */
  keysAt(uri: string): Promise<ClientJwk[]> {
    const now = Date.now();
    const cached = this.entries.get(uri);
    if (cached && cached.until > now) return cached.keys;
    if (this.entries.size >= MAX_URLS) this.entries.clear();
    const entry: Entry = { until: now + this.options.cacheMs, keys: Promise.resolve([]) };
    entry.keys = this.read(uri).catch((error: unknown) => {
      entry.until = Math.min(entry.until, Date.now() + RETRY_AFTER_FAILURE_MS);
      // Origin and path only: a query may carry a credential of the client's.
      const { origin, pathname } = new URL(uri);
      this.logger.warn(`the keys at ${origin}${pathname} could not be used: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    });
    this.entries.set(uri, entry);
    return entry.keys;
  }

  private async read(uri: string): Promise<ClientJwk[]> {
    const res = await this.fetch(uri, { method: 'GET', headers: { accept: 'application/jwk-set+json, application/json' } });
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
    const { jwks, problems } = checkClientJwks(await res.json(), 'jwks_uri');
    if (!jwks) throw new Error(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    return jwks.keys;
  }
}
