import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { JSON_BYTE, JsonStrings } from '../../common/http/json-depth.js';

/** The bytes of one JSON value in the file, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** A fault of the JSON text, naming the path of the value (empty: the whole text) and the byte where it was found. */
export class JsonFault extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path === '' ? 'the text' : path} is not valid JSON${reason}`);
  }
}

const CHUNK_BYTES = 1 << 20;
const { quote: QUOTE, openBrace: OPEN_BRACE, closeBrace: CLOSE_BRACE, openBracket: OPEN_BRACKET, closeBracket: CLOSE_BRACKET } = JSON_BYTE;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** One member of an object (`key` span up to its colon, `value` after it) or one element of an array. */
interface Item {
  start: number;
  end: number;
  colon: number;
  valueStart: number;
  bytes?: Buffer;
}

/**
 * A JSON text on disk, read a part at a time (docs/migrating.md, "Large exports"): the members of an object and
 * the elements of an array are found by one pass over the bytes that counts brackets outside strings, and only the
 * parts asked for are parsed, each by `JSON.parse`. A 200 MB export is so held one user at a time, never whole.
 * stream-json, which would do the same, costs about 0.9 ms of CPU per user (BENCHMARKS.md, "Moving in"); the
 * native parser on each part costs a tenth of that.
 *
 * The splitting checks the structure it walks (separators, the closing bracket, nothing after the value); every
 * byte it does not walk is parsed by `JSON.parse` or walked by a nested split, so the whole text is checked once
 * every part was read. Nesting depth and UTF-8 are checked before, when the body is written to the file.
 */
export class JsonFile {
  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  static async open(path: string): Promise<JsonFile> {
    const handle = await open(path, 'r');
    return new JsonFile(handle, (await handle.stat()).size);
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  get whole(): Span {
    return { start: 0, end: this.size };
  }

  /** `object`, `array` or `other` (a string, number, literal, or nothing), by the value's first byte. */
  async kind(span: Span): Promise<'object' | 'array' | 'other'> {
    for await (const { bytes } of this.chunks(span)) {
      for (const c of bytes) {
        if (isSpace(c)) continue;
        return c === OPEN_BRACE ? 'object' : c === OPEN_BRACKET ? 'array' : 'other';
      }
    }
    return 'other';
  }

  async parse(span: Span, path: string): Promise<unknown> {
    const bytes = Buffer.allocUnsafe(span.end - span.start);
    await this.handle.read(bytes, 0, bytes.length, span.start);
    return parseBytes(bytes, path, span.start);
  }

  /** An object's members, each with its key and the span of its value; a repeated key is given each time. */
  async *members(span: Span, path: string): AsyncIterable<{ key: string; value: Span }> {
    for await (const item of this.split(span, path, OPEN_BRACE, false)) {
      if (item.colon < 0) throw new JsonFault(path, `: expected ':' after the key at byte ${item.start}`);
      if (item.valueStart < 0) throw new JsonFault(path, `: no value after the key at byte ${item.start}`);
      const key = await this.parse({ start: item.start, end: item.colon }, path);
      if (typeof key !== 'string') throw new JsonFault(path, `: a key must be a string (byte ${item.start})`);
      yield { key, value: { start: item.valueStart, end: item.end } };
    }
  }

  /** An array's elements, parsed one at a time. */
  async *elements(span: Span, path: string): AsyncIterable<unknown> {
    let index = 0;
    for await (const item of this.split(span, path, OPEN_BRACKET, true)) {
      yield parseBytes(item.bytes as Buffer, `${path}[${index}]`, item.start);
      index += 1;
    }
  }

  private async *chunks(span: Span): AsyncIterable<{ offset: number; bytes: Buffer }> {
    for (let offset = span.start; offset < span.end; ) {
      // A buffer of its own per read: an element's bytes are kept as views into it.
      const bytes = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, span.end - offset));
      const { bytesRead } = await this.handle.read(bytes, 0, bytes.length, offset);
      if (bytesRead === 0) throw new JsonFault('', `: the file ended at byte ${offset}, before byte ${span.end}`);
      yield { offset, bytes: bytes.subarray(0, bytesRead) };
      offset += bytesRead;
    }
  }

  /**
   * The items of the object or array at `span` (RFC 8259 §4, §5): an item ends at a comma or the closing bracket
   * outside any string and any nested value. `keep` collects each item's bytes.
   */
  private async *split(span: Span, path: string, open: number, keep: boolean): AsyncIterable<Item> {
    const close = open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
    const what = open === OPEN_BRACE ? 'an object' : 'an array';
    let depth = 0;
    const strings = new JsonStrings();
    let closed = false;
    let afterComma = false;
    let item: Item | undefined;
    let pieces: Buffer[] = [];
    for await (const { offset, bytes } of this.chunks(span)) {
      let pieceStart = 0;
      strings.read(bytes);
      for (let i = 0; i < bytes.length; i++) {
        if (strings.inside) {
          i = strings.closing(i);
          if (i < 0) break;
          if (item) item.end = offset + i + 1;
          continue;
        }
        const c = bytes[i];
        if (isSpace(c)) continue;
        const at = offset + i;
        if (closed) throw new JsonFault(path, `: unexpected text after ${what} at byte ${at}`);
        if (depth === 0) {
          if (c !== open) throw new JsonFault(path, `: expected ${what} at byte ${at}`);
          depth = 1;
          continue;
        }
        if (depth === 1 && (c === COMMA || c === close)) {
          if (item) {
            if (keep) {
              pieces.push(bytes.subarray(pieceStart, i));
              item.bytes = Buffer.concat(pieces).subarray(0, item.end - item.start);
              pieces = [];
            }
            yield item;
            item = undefined;
          } else if (c === COMMA || afterComma) {
            throw new JsonFault(path, `: a value is missing before byte ${at}`);
          }
          afterComma = c === COMMA;
          if (c === close) {
            depth = 0;
            closed = true;
          }
          continue;
        }
        if (depth === 1 && (c === CLOSE_BRACE || c === CLOSE_BRACKET)) throw new JsonFault(path, `: unexpected '${String.fromCharCode(c)}' at byte ${at}`);
        if (depth === 1 && c === COLON && open === OPEN_BRACE) {
          if (!item || item.colon >= 0) throw new JsonFault(path, `: unexpected ':' at byte ${at}`);
          item.colon = at;
          continue;
        }
        if (!item) {
          item = { start: at, end: at + 1, colon: -1, valueStart: -1 };
          pieceStart = i;
        }
        if (item.colon >= 0 && item.valueStart < 0) item.valueStart = at;
        item.end = at + 1;
        if (c === QUOTE) strings.inside = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth += 1;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
      }
      if (item && keep) pieces.push(bytes.subarray(pieceStart));
    }
    if (!closed) throw new JsonFault(path, `: the text ends before ${what} is closed`);
  }
}

function parseBytes(bytes: Buffer, path: string, start: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new JsonFault(path, ` (from byte ${start}): ${(error as Error).message}`);
  }
}
