import { ScimFilterError, type ScimFilterErrorType } from './scim-filter.errors.js';

/**
 * Lexical tokens of a SCIM filter. A `word` is any run of characters other than whitespace,
 * parentheses, brackets and `"`; the parser decides from its position whether a word is an
 * attribute path, an operator, a keyword or a literal (`true`, `42`, …).
 */
export type Token =
  | { readonly kind: 'word'; readonly text: string; readonly position: number }
  | { readonly kind: 'string'; readonly text: string; readonly value: string; readonly position: number }
  | { readonly kind: '(' | ')' | '[' | ']' | 'eof'; readonly text: string; readonly position: number };

const PUNCTUATION = new Set(['(', ')', '[', ']']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const CONTROL_CHARACTER = /[\u0000-\u001f]/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export function tokenize(input: string, scimType: ScimFilterErrorType = 'invalidFilter'): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (WHITESPACE.has(ch)) {
      i++;
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ kind: ch as '(' | ')' | '[' | ']', text: ch, position: i });
      i++;
    } else if (ch === '"') {
      const token = readString(input, i, scimType);
      tokens.push(token);
      i += token.text.length;
    } else {
      const start = i;
      while (i < input.length && !isDelimiter(input.charAt(i))) i++;
      tokens.push({ kind: 'word', text: input.slice(start, i), position: start });
    }
  }
  tokens.push({ kind: 'eof', text: '', position: input.length });
  return tokens;
}

function isDelimiter(ch: string): boolean {
  return WHITESPACE.has(ch) || PUNCTUATION.has(ch) || ch === '"';
}

/** compValue strings are JSON strings: "rules from JSON (RFC 7159)" (RFC 7644 §3.4.2.2, Figure 1). */
function readString(input: string, start: number, scimType: ScimFilterErrorType): Token {
  // Most strings have no escape and no control character: their value is the text between the quotes,
  // taken in one slice rather than a character at a time. Any other string takes the loop below.
  const end = input.indexOf('"', start + 1);
  if (end !== -1) {
    const body = input.slice(start + 1, end);
    if (!body.includes('\\') && !CONTROL_CHARACTER.test(body)) return { kind: 'string', text: input.slice(start, end + 1), value: body, position: start };
  }
  let value = '';
  let i = start + 1;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (ch === '"') {
      return { kind: 'string', text: input.slice(start, i + 1), value, position: start };
    }
    if (ch === '\\') {
      const esc = input.charAt(i + 1);
      const simple = SIMPLE_ESCAPES[esc];
      if (simple !== undefined) {
        value += simple;
        i += 2;
      } else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(input.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(input.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        throw lexError(i, 'invalid escape sequence in string; expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX', scimType);
      }
    } else if (ch < ' ') {
      throw lexError(i, 'control characters in strings must be escaped (JSON string rules)', scimType);
    } else {
      value += ch;
      i++;
    }
  }
  throw lexError(start, `unterminated string: expected a closing '"'`, scimType);
}

function lexError(position: number, problem: string, scimType: ScimFilterErrorType): ScimFilterError {
  const what = scimType === 'invalidPath' ? 'path' : 'filter';
  return new ScimFilterError(`Invalid ${what} at position ${position}: ${problem}`, position, scimType);
}

/** Human-readable rendering of a token for error messages. */
export function describeToken(token: Token): string {
  if (token.kind === 'eof') return 'end of input';
  const text = token.text.length > 40 ? `${token.text.slice(0, 37)}...` : token.text;
  return token.kind === 'string' ? `string ${text}` : `'${text}'`;
}
