/**
 * The deepest nesting of arrays and objects any legitimate body reaches is about 8 (an import's
 * `dataOrgs.orgs[].humanUsers[].user.profile`, a SCIM Bulk operation's PATCH value). Recursive code
 * downstream (class-transformer, validation, the SCIM schema walk) overflows the stack on a few
 * thousand levels, which JSON.parse itself accepts (RFC 8259 §9: "An implementation may set limits
 * on the maximum depth of nesting").
 */
export const MAX_JSON_DEPTH = 32;

/** The bytes of JSON's structure (RFC 8259 §2), never part of a multi-byte UTF-8 character. */
export const JSON_BYTE = { openBracket: 0x5b, openBrace: 0x7b, closeBracket: 0x5d, closeBrace: 0x7d, quote: 0x22, backslash: 0x5c } as const;
const {
  openBracket: OPEN_BRACKET,
  openBrace: OPEN_BRACE,
  closeBracket: CLOSE_BRACKET,
  closeBrace: CLOSE_BRACE,
  quote: QUOTE,
  backslash: BACKSLASH,
} = JSON_BYTE;

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
  private readonly strings = new JsonStrings();

  constructor(private readonly limit: number) {}

  /** True once the text so far nests deeper than the limit. */
  exceededBy(utf8: Uint8Array): boolean {
    const bytes = Buffer.isBuffer(utf8) ? utf8 : Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength);
    const strings = this.strings;
    strings.read(bytes);
    let depth = this.depth;
    for (let i = 0; i < bytes.length; i++) {
      if (strings.inside) {
        i = strings.closing(i);
        if (i < 0) break;
        continue;
      }
      const c = bytes[i];
      if (c === QUOTE) {
        strings.inside = true;
      } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (++depth > this.limit) return true;
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
        depth--;
      }
    }
    this.depth = depth;
    return false;
  }
}

/**
 * The strings of a JSON text read in chunks (RFC 8259 §7): inside one only a quotation mark or a backslash matters,
 * and an escape cut by the end of a chunk is carried to the next. A byte loop: a search with Buffer's `indexOf` for
 * the next of either was measured no faster on exports' short strings.
 */
export class JsonStrings {
  /** The text is inside a string (set by the reader at its opening quotation mark). */
  inside = false;
  private escaped = false;
  private bytes: Buffer = Buffer.alloc(0);

  /** The next chunk of the text. */
  read(bytes: Buffer): void {
    this.bytes = bytes;
  }

  /** From `from`, inside a string: the index of its closing quotation mark, or -1 when this chunk ends first. */
  closing(from: number): number {
    const bytes = this.bytes;
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i += 1;
    }
    for (; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === QUOTE) {
        this.inside = false;
        return i;
      }
      if (c === BACKSLASH) {
        if (i + 1 >= bytes.length) {
          this.escaped = true;
          return -1;
        }
        i += 1;
      }
    }
    return -1;
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
