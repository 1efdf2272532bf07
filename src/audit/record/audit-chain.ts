import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS whose module.exports is the function, while its types declare a default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** The chain value before a stream's first record: 64 zeros (docs/audit-and-signals.md, "The record"). */
export const CHAIN_START = '0'.repeat(64);

/**
 * A record's `chain`: the lowercase hex SHA-256 of the previous record's chain (its 64 hex characters) followed by
 * the UTF-8 bytes of this record's canonical JSON (RFC 8785, by the `canonicalize` library) without its `chain`
 * member. Shared by the sender and by `portcullis audit verify`, so both hash the same bytes.
 */
export function chainOf(previous: string, record: Record<string, unknown>): string {
  const { chain: _chain, ...rest } = record;
  const canonical = canonicalize(rest);
  if (canonical === undefined) throw new Error('an audit record must be a JSON object');
  return createHash('sha256').update(previous, 'ascii').update(canonical, 'utf8').digest('hex');
}
