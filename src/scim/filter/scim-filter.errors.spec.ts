import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ScimFilterError } from './scim-filter.errors.js';
import { formatFilter } from './scim-filter.format.js';
import { MAX_FILTER_LENGTH, parseFilter, parsePatchPath, type ParseFilterOptions } from './scim-filter.parser.js';

function assertFilterError(filter: string, position: number, message: RegExp, options: ParseFilterOptions = {}): void {
  assert.throws(
    () => parseFilter(filter, options),
    (e: unknown) => {
      assert.ok(e instanceof ScimFilterError, `expected ScimFilterError, got ${String(e)}`);
      assert.equal(e.scimType, 'invalidFilter');
      assert.equal(e.status, 400);
      assert.equal(e.position, position, e.message);
      assert.match(e.message, message);
      if (e.message.startsWith('Invalid')) assert.match(e.message, new RegExp(`^Invalid filter at position ${position}: `));
      return true;
    },
  );
}

describe('parseFilter errors', () => {
  it('rejects an empty or blank filter', () => {
    assertFilterError('', 0, /filter is empty/);
    assertFilterError('   ', 0, /filter is empty/);
  });

  it(`rejects filters longer than ${MAX_FILTER_LENGTH} characters`, () => {
    const long = `displayName eq "${'x'.repeat(MAX_FILTER_LENGTH)}"`;
    assertFilterError(long, MAX_FILTER_LENGTH, /at most 1000/);
    const exactly = `displayName eq "${'x'.repeat(MAX_FILTER_LENGTH - 17)}"`;
    assert.equal(exactly.length, MAX_FILTER_LENGTH);
    assert.equal(parseFilter(exactly).kind, 'compare');
  });

  it('reports unterminated strings, bad escapes and raw control characters', () => {
    assertFilterError('userName eq "bjensen', 12, /unterminated string/);
    assertFilterError('userName eq "a\\x"', 14, /invalid escape/);
    assertFilterError('userName eq "a\\u12"', 14, /invalid escape/);
    assertFilterError('userName eq "a\u0001"', 14, /control characters/);
  });

  it('reports a missing or unknown operator', () => {
    assertFilterError('userName', 8, /expected an operator \(eq, ne, co, sw, ew, gt, ge, lt, le or pr\) after 'userName' but found end of input/);
    assertFilterError('userName un "x"', 9, /expected an operator .* but found 'un'/);
    assertFilterError('userName "x"', 9, /expected an operator .* but found string "x"/);
  });

  it('reports a missing or unquoted value', () => {
    assertFilterError('userName eq', 11, /expected a comparison value .* but found end of input/);
    assertFilterError('userName eq bjensen', 12, /strings must be in double quotes/);
    assertFilterError('active eq True', 10, /comparison value/);
    assertFilterError('x eq 01', 5, /comparison value/);
    assertFilterError('x eq (', 5, /comparison value .* but found '\('/);
  });

  it('rejects operator/value combinations RFC 7644 does not allow', () => {
    assertFilterError('title co 5', 9, /'co' needs a string value/);
    assertFilterError('title sw null', 9, /'sw' needs a string value/);
    assertFilterError('active gt true', 10, /'gt' needs a string, date or number value/);
    assertFilterError('x le null', 5, /'le' needs/);
  });

  it('reports unbalanced parentheses and brackets', () => {
    assertFilterError('(a pr', 5, /expected 'and', 'or' or '\)' but found end of input/);
    assertFilterError('a pr)', 4, /expected 'and', 'or' or end of filter but found '\)'/);
    assertFilterError('emails[type eq "work"', 21, /expected 'and', 'or' or '\]'/);
    assertFilterError('not (a pr', 9, /'\)'/);
    assertFilterError('()', 1, /expected an attribute name, 'not' or '\('/);
  });

  it('reports dangling logical operators and trailing input', () => {
    assertFilterError('a pr and', 8, /expected an attribute name, 'not' or '\(' but found end of input/);
    assertFilterError('a pr b pr', 5, /expected 'and', 'or' or end of filter but found 'b'/);
    assertFilterError('a eq "x" "y"', 9, /end of filter/);
  });

  it("explains that strict 'not' needs parentheses", () => {
    assertFilterError('not userName eq "x"', 4, /'not' must be followed by '\('/);
  });

  it('rejects invalid attribute names and paths', () => {
    assertFilterError('1abc pr', 0, /'1abc' is not a valid attribute name/);
    assertFilterError('name.givenName.x pr', 0, /more than one sub-attribute level/);
    assertFilterError('foo:bar pr', 0, /':' is only allowed in 'urn:' prefixes/);
    assertFilterError('urn:x pr', 0, /not a valid schema URN/);
    assertFilterError('urn:ietf:params:scim: pr', 0, /attribute name is missing/);
    assertFilterError('name. pr', 0, /empty name/);
    assertFilterError('valid$Name pr', 0, /not a valid attribute name/);
  });

  it('rejects nested value filters and operators after a value path', () => {
    assertFilterError('emails[values[x pr]]', 13, /cannot be nested/);
    assertFilterError('emails[type eq "work"] pr', 23, /end of filter but found 'pr'/);
    assertFilterError('emails[type eq "work"].value', 28, /expected an operator .* after '.value'/);
    assertFilterError('emails[type eq "work"].9 pr', 22, /sub-attribute name after/);
  });

  it('rejects what only the lenient options allow', () => {
    assertFilterError('not a pr', 4, /'not' must be followed by '\('/);
    assert.doesNotThrow(() => parseFilter('not a pr', { allowNotWithoutParentheses: true }));
    assertFilterError('a eq b', 5, /double quotes/);
    assert.doesNotThrow(() => parseFilter('a eq b', { allowUnquotedStrings: true }));
  });
});

describe('parsePatchPath errors', () => {
  function assertPathError(path: string, message: RegExp): void {
    assert.throws(
      () => parsePatchPath(path),
      (e: unknown) => e instanceof ScimFilterError && e.scimType === 'invalidPath' && message.test(e.message),
    );
  }

  it('uses scimType invalidPath and says "path"', () => {
    assertPathError('', /path is empty/);
    assertPathError('emails[type eq "work"', /Invalid path at position 21/);
    assertPathError('emails[type eq "work"] pr', /expected '\[' or end of path but found 'pr'/);
    assertPathError('userName eq "x"', /expected '\[' or end of path but found 'eq'/);
    assertPathError('a.b.c', /more than one sub-attribute level/);
    assertPathError('emails[type eq work]', /double quotes/);
    assertPathError('x'.repeat(MAX_FILTER_LENGTH + 1), /at most 1000/);
    assertPathError('emails[type eq "a\\q"]', /Invalid path at position 17: invalid escape/);
  });
});

describe('parseFilter robustness', () => {
  /** Deterministic pseudo-random generator (mulberry32), so failures reproduce. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const ATTRS = ['userName', 'name.givenName', 'emails', 'emails.value', 'urn:ietf:params:scim:schemas:core:2.0:User:id', '$ref', 'not', 'pr'];
  const STRINGS = ['"x"', '"\\"q\\\\"', '""', '"2011-05-13T04:42:34Z"'];
  const VALUES_BY_OP: Readonly<Record<string, readonly string[]>> = {
    eq: [...STRINGS, '42', 'true', 'false', 'null'],
    NE: [...STRINGS, '-1.5e3', 'null'],
    co: STRINGS,
    sw: STRINGS,
    gt: [...STRINGS, '0'],
    le: [...STRINGS, '2E2'],
  };

  /** A random filter from the RFC 7644 grammar. */
  function generate(next: () => number, depth: number, inBrackets = false): string {
    const roll = depth <= 0 ? next() * 0.5 : next();
    if (roll < 0.25) return `${pick(next, ATTRS)} pr`;
    if (roll < 0.5) {
      const op = pick(next, Object.keys(VALUES_BY_OP));
      return `${pick(next, ATTRS)} ${op} ${pick(next, VALUES_BY_OP[op] ?? [])}`;
    }
    if (roll < 0.65) return `${generate(next, depth - 1, inBrackets)} ${pick(next, ['and', 'OR'])} ${generate(next, depth - 1, inBrackets)}`;
    if (roll < 0.75) return `not (${generate(next, depth - 1, inBrackets)})`;
    if (roll < 0.85) return `(${generate(next, depth - 1, inBrackets)})`;
    if (inBrackets) return `${pick(next, ATTRS)} pr`;
    return `emails[${generate(next, depth - 1, true)}]`;
  }

  /** Deletes, duplicates or inserts a few characters. */
  function mutate(next: () => number, text: string): string {
    const at = Math.floor(next() * (text.length + 1));
    const roll = next();
    if (roll < 0.4) return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3));
    if (roll < 0.7) return text.slice(0, at) + pick(next, ['(', ')', '[', ']', '"', '\\', ' and', 'pr ', '.', ':']) + text.slice(at);
    return text.slice(0, at) + text.slice(Math.max(0, at - 4), at) + text.slice(at);
  }

  it('parses every generated filter to an AST that formats and re-parses to itself', () => {
    const next = random(7644);
    for (let i = 0; i < 1000; i++) {
      const text = generate(next, 4);
      const ast = parseFilter(text);
      assert.deepEqual(parseFilter(formatFilter(ast)), ast, text);
    }
  });

  it('only ever throws ScimFilterError on mutated filters, in strict and lenient modes', () => {
    const next = random(7643);
    let failures = 0;
    for (let i = 0; i < 2000; i++) {
      const text = mutate(next, generate(next, 3));
      for (const options of [{}, { allowUnquotedStrings: true, allowNotWithoutParentheses: true }]) {
        try {
          const ast = parseFilter(text, options);
          assert.deepEqual(parseFilter(formatFilter(ast)), ast, text);
        } catch (e) {
          assert.ok(e instanceof ScimFilterError, `${JSON.stringify(text)} threw ${String(e)}`);
          assert.ok(e.position >= 0 && e.position <= text.length, `${JSON.stringify(text)}: position ${e.position}`);
          failures++;
        }
      }
    }
    assert.ok(failures > 500, `only ${failures} mutated filters were rejected`);
  });
});
