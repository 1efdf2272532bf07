import { Logger } from '@nestjs/common';
import type { AdapterPayload } from 'oidc-provider';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import type { ClientKeysAtUri } from '../provider-port.js';
import { documentCacheMs } from './cache-lifetime.js';
import { clientIdUrlProblem } from './client-id-url.js';
import { checkMetadataDocument } from './metadata-document.js';

/** A client's metadata is a few hundred bytes: 5 KB bounds what a URL a stranger names makes this instance buffer. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** A URL that failed is not fetched again for this long: a client cannot make this instance fetch at its pace. */
export const FAILED_DOCUMENT_CACHE_MS = 60_000;
/** URLs remembered at once; past it the cache starts over. */
const MAX_URLS = 1_000;

/** The client a document describes, or why the URL names none. */
export type AgentClientLookup = { metadata: AdapterPayload } | { problem: string; error?: 'invalid_client_metadata' };

interface Entry {
  until: number;
  lookup: Promise<AgentClientLookup>;
}

/**
 * Clients known by their Client ID Metadata Document (docs/agents.md, "Client ID Metadata Documents"): the
 * document at the `client_id` URL, fetched under the outbound address rules (outbound-fetch.ts: checked addresses,
 * no redirects followed, 5 s, 5 KB), served as `application/json` with status 200, checked by checkMetadataDocument.
 * A good document is kept for its caching lifetime clamped to [5 min, 24 h] (cache-lifetime.ts), a failure for one
 * minute, so a failure is never served as a client and a good document is never replaced by a failed refetch
 * before it expires. Concurrent lookups of a URL share one fetch. One cache per process (ProviderInputs).
 */
export class ClientIdMetadataDocuments {
  private readonly logger = new Logger('ClientIdMetadataDocuments');
  private readonly entries = new Map<string, Entry>();
  private readonly fetch: ReturnType<typeof outboundFetch>;

  constructor(
    /** `scope`: what such a client may ask for, the provider's scopes of an application without API access. */
    private readonly options: { allowPrivateNetworks: boolean; scope: string },
    private readonly remoteKeys: ClientKeysAtUri,
    /** Whether any organization accepts such clients: while none does, no document is fetched at all. */
    private readonly anyAccepted: () => Promise<boolean>,
  ) {
    this.fetch = outboundFetch({ allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: DOCUMENT_TIMEOUT_MS, maxBodyBytes: MAX_DOCUMENT_BYTES });
  }

  /** The client this URL names, read from the cache or fetched. */
  async lookup(url: string): Promise<AgentClientLookup> {
    const problem = clientIdUrlProblem(url);
    if (problem) return { problem };
    const now = Date.now();
    const cached = this.entries.get(url);
    if (cached && cached.until > now) return this.withKeys(await cached.lookup);
    // An instance whose organizations all refuse these clients fetches nothing a stranger names (read on use).
    if (!(await this.anyAccepted())) return { problem: 'no organization of this instance accepts clients known by their metadata document' };
    if (this.entries.size >= MAX_URLS) this.entries.clear();
    const entry: Entry = { until: Number.POSITIVE_INFINITY, lookup: Promise.resolve({ problem: 'not read yet' }) };
    entry.lookup = this.read(url).then(
      ({ lookup, cacheMs }) => {
        entry.until = Date.now() + ('problem' in lookup ? FAILED_DOCUMENT_CACHE_MS : cacheMs);
        if ('problem' in lookup) this.logger.warn(`the client metadata document at ${originAndPath(url)} was refused: ${lookup.problem}`);
        return lookup;
      },
      (error: unknown) => {
        entry.until = Date.now() + FAILED_DOCUMENT_CACHE_MS;
        const problem = `the document could not be fetched: ${error instanceof Error ? error.message : String(error)}`;
        this.logger.warn(`the client metadata document at ${originAndPath(url)} was refused: ${problem}`);
        return { problem };
      },
    );
    this.entries.set(url, entry);
    return this.withKeys(await entry.lookup);
  }

  private async read(url: string): Promise<{ lookup: AgentClientLookup; cacheMs: number }> {
    const res = await this.fetch(url, { method: 'GET', headers: { accept: 'application/json' } });
    const cacheMs = documentCacheMs(res.headers, Date.now());
    // A redirect is not followed (the document must be at the client id itself), so it is no document.
    if (res.status !== 200) return { lookup: { problem: `the document URL answered ${res.status}` }, cacheMs };
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') return { lookup: { problem: `the document is served as ${type || 'no type'}, not application/json` }, cacheMs };
    let document: unknown;
    try {
      document = JSON.parse(await res.text());
    } catch {
      return { lookup: { problem: 'the document is not JSON' }, cacheMs };
    }
    const checked = checkMetadataDocument(url, document, this.options.scope);
    if ('problem' in checked) return { lookup: checked, cacheMs };
    const metadata = checked.jwksUri ? { ...checked.metadata, portcullis_jwks_uri: checked.jwksUri } : checked.metadata;
    return { lookup: { metadata }, cacheMs };
  }

  /** A private_key_jwt client's keys at its jwks_uri, read under the rules of every application's (ClientKeysAtUri). */
  private async withKeys(lookup: AgentClientLookup): Promise<AgentClientLookup> {
    if ('problem' in lookup) return lookup;
    const { portcullis_jwks_uri: jwksUri, ...metadata } = lookup.metadata;
    if (typeof jwksUri !== 'string') return lookup;
    return { metadata: { ...metadata, jwks: { keys: await this.remoteKeys.keysAt(jwksUri) } } };
  }
}

/** Origin and path only: a query may carry something of the client's. */
function originAndPath(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}
