import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ScimFilterError, formatFilter, parseFilter } from '../../src/scim/filter/index.js';
import { ScimPatchError, applyPatch } from '../../src/scim/patch/index.js';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);

/** Pieces of the filter grammar and of attacks on it, so random texts reach deep into the parser. */
const FILTER_PIECES = [
  'userName',
  'name.familyName',
  'emails',
  'emails.value',
  'emails[type eq "work"]',
  'meta.lastModified',
  'active',
  'id',
  'urn:ietf:params:scim:schemas:core:2.0:User:userName',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value',
  'eq',
  'ne',
  'co',
  'sw',
  'ew',
  'gt',
  'ge',
  'lt',
  'le',
  'pr',
  'and',
  'or',
  'not',
  'AND',
  'Or',
  '(',
  ')',
  '[',
  ']',
  '"x"',
  '"a\\"b"',
  '""',
  '"\\u0000"',
  'true',
  'false',
  'null',
  '1.5',
  '-0',
  '1e400',
  '2011-05-13T04:42:34Z',
  "'",
  "' OR '1'='1",
  '--',
  ';',
  '/*',
  '*/',
  'UNION SELECT password_hash FROM users',
  '%',
  '_',
  '\\',
  '\u00e9',
  '\ud83d\ude00',
];
/** Texts of the grammar (RFC 7644 §3.4.2.2 Figure 1), with hostile string values. */
const validFilter = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(
        fc.constantFrom('userName', 'name.familyName', 'emails.value', 'active', 'meta.lastModified', 'urn:ietf:params:scim:schemas:core:2.0:User:userName'),
        fc.constantFrom('eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'),
        fc.oneof(
          fc.string({ maxLength: 12 }).map((v) => JSON.stringify(v)),
          fc.constantFrom('true', 'false', 'null', '42', '1.5', `"' OR 1=1 --"`, '"%_\\\\"'),
        ),
      )
      .map(([attr, op, value]) => `${attr} ${op} ${value}`),
    fc.constantFrom('userName', 'emails', 'title').map((attr) => `${attr} pr`),
    fc.tuple(tie('filter'), fc.constantFrom('and', 'or', 'AND'), tie('filter')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('filter').map((f) => `not (${f})`),
    tie('filter').map((f) => `(${f})`),
    fc.constantFrom('emails', 'phoneNumbers').chain((attr) => fc.constantFrom(`${attr}[type eq "work"]`, `${attr}[value co "@" and primary eq true]`)),
  ),
})).filter;

const filterText = fc.oneof(
  validFilter,
  fc.array(fc.constantFrom(...FILTER_PIECES), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('property: the SCIM filter parser', () => {
  it('any text either parses or throws ScimFilterError (never another error), and parse → format → parse is stable', () => {
    let parsed = 0;
    for (const options of [{}, { allowUnquotedStrings: true, allowNotWithoutParentheses: true }]) {
      fc.assert(
        fc.property(filterText, (text) => {
          let ast;
          try {
            ast = parseFilter(text, options);
          } catch (error) {
            assert.ok(error instanceof ScimFilterError, `${JSON.stringify(text)} threw ${String(error)}`);
            assert.equal(error.status, 400);
            return;
          }
          parsed++;
          const printed = formatFilter(ast);
          assert.deepEqual(parseFilter(printed), ast, `${JSON.stringify(text)} → ${printed}`);
          assert.equal(formatFilter(parseFilter(printed)), printed, 'printing is a fixed point');
        }),
        { numRuns: 3000, seed: SEED },
      );
    }
    assert.ok(parsed > 200, `enough generated filters were valid to test the round trip (${parsed})`);
  });
});

describe('property: the SCIM PATCH engine', () => {
  const USER = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: 'u-1',
    userName: 'bjensen',
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [{ value: 'b@example.com', type: 'work', primary: true }],
    active: true,
  };
  const path = fc.oneof(
    fc.constantFrom(
      'userName',
      'name.givenName',
      'emails',
      'emails[type eq "work"].value',
      'emails[primary eq true]',
      'active',
      'id',
      'meta.created',
      'schemas',
      'bogus',
      'emails[',
      'name..x',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber',
    ),
    fc.string({ maxLength: 20 }),
  );
  const operation = fc.record(
    {
      op: fc.constantFrom('add', 'remove', 'replace', 'Replace', 'move', 'copy', ''),
      path,
      value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
    },
    { requiredKeys: ['op'] },
  );
  const operations = fc.oneof(fc.array(operation, { minLength: 0, maxLength: 4 }), fc.anything({ maxDepth: 2 }) as fc.Arbitrary<never>);

  it('never changes its input; a rejected PATCH throws ScimPatchError only, so the stored user stays byte-identical', () => {
    let rejected = 0;
    fc.assert(
      fc.property(operations, (ops) => {
        const resource = structuredClone(USER);
        const before = JSON.stringify(resource);
        try {
          const patched = applyPatch(resource, ops);
          assert.ok(patched !== resource);
        } catch (error) {
          rejected++;
          assert.ok(error instanceof ScimPatchError, `${JSON.stringify(ops)} threw ${String(error)}`);
        }
        assert.equal(JSON.stringify(resource), before, `${JSON.stringify(ops)} mutated its input`);
      }),
      { numRuns: 3000, seed: SEED },
    );
    assert.ok(rejected > 100 && rejected < 3000, `both outcomes were exercised (${rejected} rejected)`);
  });
});
