/**
 * Table-driven tests from scimmy's filter vectors (test/fixtures/scimmy/filter.json, MIT).
 * Every vector is asserted: either it matches scimmy, or it is listed below with the reason we differ.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ScimFilterError } from './scim-filter.errors.js';
import { formatFilter } from './scim-filter.format.js';
import { matchesFilter } from './scim-filter.matcher.js';
import { parseFilter, type ParseFilterOptions } from './scim-filter.parser.js';
import { astToDnf, scimmyExpressionToFilter, scimmyToDnf, type Dnf } from '../../../test/vectors/scimmy-filter-shape.js';
import { loadScimmyFilterVectors } from '../../../test/support/scimmy-vectors.js';

const vectors = loadScimmyFilterVectors();
const LENIENT: ParseFilterOptions = { allowUnquotedStrings: true, allowNotWithoutParentheses: true };

interface Deviation {
  /** Only parses with the lenient options (asserted to fail without them). */
  readonly lenient?: true;
  /** We reject it in every mode. */
  readonly rejected?: true;
  /** Our DNF where it intentionally differs from scimmy's target. */
  readonly dnf?: Dnf;
  readonly reason: string;
}

const UNQUOTED = 'RFC 7644 compValue must be a quoted string, number, true, false or null; accepted with allowUnquotedStrings';
const BARE_NOT = "RFC 7644 requires 'not' to be followed by '('; accepted with allowNotWithoutParentheses";
const OP_AFTER_VALUE_PATH = "RFC 7644 has no operator after a value path 'attr[filter]'; 'attr[filter] pr' is just 'attr[filter]'";
const NESTED = 'value filters cannot nest: complex sub-attributes may not be complex (RFC 7643 §2.3.8)';
const DE_MORGAN = "scimmy's target negates 'not (A or B)' as 'not A or not B'; De Morgan gives 'not A and not B'";

const DEVIATIONS = new Map<string, Deviation>([
  ['valid$Name eq null', { rejected: true, reason: 'ATTRNAME = ALPHA *(nameChar); "$" is only accepted as the first character of "$ref"' }],
  ['-valid$Name eq -null', { rejected: true, reason: 'an attribute name must start with a letter; -null is not a value' }],
  ['value eq 123abc', { lenient: true, reason: UNQUOTED }],
  ['value eq 123abc5e4', { lenient: true, reason: UNQUOTED }],
  ['not eq pr', { lenient: true, reason: BARE_NOT }],
  ['NOT id pr', { lenient: true, reason: BARE_NOT }],
  ['email.value ew "@example.com" and not userName eq "Test"', { lenient: true, reason: BARE_NOT }],
  ['email.type eq "work" or not userName ne "Test"', { lenient: true, reason: BARE_NOT }],
  ['email.type eq "work" AND not email.value ew "@example.com"', { lenient: true, reason: BARE_NOT }],
  ['NOT email.type eq "work" and not email.value ew "@example.com"', { lenient: true, reason: BARE_NOT }],
  ['NOt not sw "A" and userName ew "Z" and userName co "m"', { lenient: true, reason: BARE_NOT }],
  ['not not sw "A" and userName ew "Z" and userName co "m"', { lenient: true, reason: BARE_NOT }],
  ['not id pr', { lenient: true, reason: BARE_NOT }],
  ['email.value ew "@example.com" and not userName eq "Test"', { lenient: true, reason: BARE_NOT }],
  ['not email.type eq "work" and not email.value ew "@example.com"', { lenient: true, reason: BARE_NOT }],
  ['email.type eq "work" and not email.value ew "@example.com"', { lenient: true, reason: BARE_NOT }],
  [
    'not emails[type eq "work"].value pr',
    {
      lenient: true,
      dnf: [['not emails.type eq "work"'], ['not emails.value pr']],
      reason: `${BARE_NOT}; 'not' negates the whole expression 'emails[type eq "work" and value pr]', not just 'value pr'`,
    },
  ],
  [
    'userName sw "A" and not (userName ew "Z" or displayName co "Bob")',
    { dnf: [['not displayname co "Bob"', 'not username ew "Z"', 'username sw "A"']], reason: DE_MORGAN },
  ],
  [
    'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
    {
      dnf: [['not emails co "example.com"', 'not emails.value co "example.org"', 'usertype ne "Employee"']],
      reason: DE_MORGAN,
    },
  ],
  ['emails[type eq "work" or type eq "home"].values[domain ew "@example.org"]', { rejected: true, reason: NESTED }],
  ['emails[type eq "work" or type eq "home"].values[domain ew "@example.org" or domain ew "@example.com"]', { rejected: true, reason: NESTED }],
  ['emails[type eq "work" or type eq "home"].values[domain ew "@example.org" or domain ew "@example.com"].recipient pr', { rejected: true, reason: NESTED }],
  ['emails[type eq "work"].values[domain ew "@example.org" or domain ew "@example.com"].recipient pr', { rejected: true, reason: NESTED }],
  ['emails[type eq "work"] pr', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  ['emails[not type eq "work"] pr', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  ['emails[type eq "work"] co "A"', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  ['emails[not type eq "work"] co "A"', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  ['not emails[not type eq "work"] co "A"', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  ['userType eq "Employee" and emails[type eq "work" or primary eq true] pr', { rejected: true, reason: OP_AFTER_VALUE_PATH }],
  [
    'userType eq "Employee" and emails[type eq "work"] pr or userType eq "Employee" and emails[primary eq true] pr',
    { rejected: true, reason: OP_AFTER_VALUE_PATH },
  ],
]);

function assertParsesTo(source: string, target: readonly unknown[]): void {
  const deviation = DEVIATIONS.get(source);
  if (deviation?.rejected === true) {
    assert.throws(() => parseFilter(source), ScimFilterError);
    assert.throws(() => parseFilter(source, LENIENT), ScimFilterError);
    return;
  }
  if (deviation?.lenient === true) assert.throws(() => parseFilter(source), ScimFilterError);
  const ast = parseFilter(source, deviation?.lenient === true ? LENIENT : {});
  assert.deepEqual(astToDnf(ast), deviation?.dnf ?? scimmyToDnf(target));
  // The formatter's strict RFC rendering parses back to the same AST.
  assert.deepEqual(parseFilter(formatFilter(ast)), ast);
}

describe('scimmy filter vectors: parse (filter text → AST)', () => {
  for (const [group, cases] of Object.entries(vectors.parse)) {
    describe(group, () => {
      for (const { source, target } of cases) {
        const note = DEVIATIONS.get(source)?.reason;
        it(note === undefined ? source : `${source}  [${note}]`, () => assertParsesTo(source, target));
      }
    });
  }
});

describe('scimmy filter vectors: expression (AST → filter text), checked by parsing the text', () => {
  for (const [group, cases] of Object.entries(vectors.expression)) {
    describe(group, () => {
      for (const { source, target } of cases) {
        it(target, () => assertParsesTo(target, source));
      }
    });
  }
});

/**
 * scimmy's match vectors run without a schema and compare strings case-sensitively. We run them
 * with every attribute declared caseExact; with RFC 7643 defaults (caseExact false) three differ.
 */
const SCIMMY_CASE_EXACT = ['id', 'userName', 'date', 'name.formatted', 'name.givenName', 'name.familyName', 'emails.type', 'emails.value'];
const RFC_DEFAULT_DIFFERENCES = new Map<string, readonly number[]>([
  ['userName co "A"', [1, 2, 4]], // MeganB contains "a"
  ['userName co "A" and name.formatted co "a"', [1, 2, 4]], // likewise
  ['(date gt "2021-09-08") or (userName co "a")', [1, 2, 4]], // AdeleV contains "A"
]);

function idsMatching(filter: string, caseExactAttributes?: readonly string[]): number[] {
  const ast = parseFilter(filter);
  return vectors.match.source
    .filter((resource) => matchesFilter(ast, resource, caseExactAttributes === undefined ? {} : { caseExactAttributes }))
    .map((resource) => Number(resource['id']));
}

describe('scimmy filter vectors: match', () => {
  for (const [group, cases] of Object.entries(vectors.match.targets)) {
    describe(group, () => {
      for (const { expression, expected } of cases) {
        const filter = scimmyExpressionToFilter(expression);
        if (/ un /.test(filter)) {
          it(`${filter}  [unknown operator: rejected as invalidFilter instead of matching nothing]`, () => {
            assert.throws(
              () => parseFilter(filter),
              (e: unknown) => e instanceof ScimFilterError && e.scimType === 'invalidFilter',
            );
          });
          continue;
        }
        it(`${filter} → [${expected.join(', ')}]`, () => {
          assert.deepEqual(idsMatching(filter, SCIMMY_CASE_EXACT), [...expected]);
        });
        it(`${filter} with RFC caseExact defaults`, () => {
          assert.deepEqual(idsMatching(filter), [...(RFC_DEFAULT_DIFFERENCES.get(filter) ?? expected)]);
        });
      }
    });
  }

  it('covers every vector (56 parse, 31 expression, 59 match)', () => {
    const count = (groups: Record<string, readonly unknown[]>): number => Object.values(groups).reduce((n, g) => n + g.length, 0);
    assert.deepEqual([count(vectors.parse), count(vectors.expression), count(vectors.match.targets)], [56, 31, 59]);
  });
});
