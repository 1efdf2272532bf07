/**
 * The deepest nesting of arrays and objects any legitimate body reaches is about 8 (an import's
 * `dataOrgs.orgs[].humanUsers[].user.profile`, a SCIM Bulk operation's PATCH value). Recursive code
 * downstream (class-transformer, validation, the SCIM schema walk) overflows the stack on a few
 * thousand levels, which JSON.parse itself accepts (RFC 8259 §9: "An implementation may set limits
 * on the maximum depth of nesting").
 */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests arrays and objects deeper than `limit`. One pass over the raw bytes,
 * before parsing (see JsonDepth).
 */
export function nestsDeeperThan(utf8: Uint8Array, limit: number): boolean {
  return new JsonDepth(limit).exceededBy(utf8);
}

/**
 * The nesting of a JSON text read in chunks: brackets inside strings do not count (RFC 8259 §7: a string
 * is delimited by unescaped quotation marks). In UTF-8 every byte of a multi-byte character is ≥ 0x80, so
 * no such byte is mistaken for a bracket, a quote or a backslash. Malformed text is left to the parser.
 */
export class JsonDepth {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly limit: number) {}

  /** True once the text so far nests deeper than the limit. */
  exceededBy(utf8: Uint8Array): boolean {
    const bytes = Buffer.isBuffer(utf8) ? utf8 : Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength);
    const strings = new StringStops(bytes);
    let { depth, inString, escaped } = this;
    for (let i = 0; i < bytes.length; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        i = strings.next(i);
        if (i === bytes.length) break;
        if (bytes[i] === BACKSLASH) escaped = true;
        else inString = false;
        continue;
      }
      const c = bytes[i];
      if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (++depth > this.limit) return true;
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
        depth--;
      }
    }
    Object.assign(this, { depth, inString, escaped });
    return false;
  }
}

/**
 * Inside a string only a quotation mark or a backslash matters (RFC 8259 §7): the next of either is found by
 * Buffer's native search rather than byte by byte, as most of an export's bytes are in strings.
 */
export class StringStops {
  private backslash = -2;

  constructor(private readonly bytes: Buffer) {}

  /** The index of the next quotation mark or backslash at or after `from`, or the length. */
  next(from: number): number {
    if (this.backslash !== -1 && this.backslash < from) this.backslash = this.bytes.indexOf(BACKSLASH, from);
    const quote = this.bytes.indexOf(QUOTE, from);
    if (quote === -1) return this.backslash === -1 ? this.bytes.length : this.backslash;
    return this.backslash === -1 || quote < this.backslash ? quote : this.backslash;
  }
}

/**
 * The body's bytes as UTF-8 (RFC 8259 §8.1), re-encoded from the other `utf-*` charsets body-parser
 * lets through; undefined for one that TextDecoder does not know (such a body is refused as 415).
 */
export function asUtf8(body: Buffer, charset: string): Uint8Array | undefined {
  if (/^utf-?8$/i.test(charset)) return body;
  try {
    return Buffer.from(new TextDecoder(charset).decode(body), 'utf8');
  } catch {
    return undefined;
  }
}
