/**
 * Table-driven tests from scimmy's PatchOp vectors (test/fixtures/scimmy/patchop.json, MIT).
 * scimmy runs them against a generic test schema; here the engine's default User/Group schema
 * hints apply (emails and members multi-valued, id read-only), which fit every vector.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadScimmyPatchVectors, type ScimmyPatchVector } from '../../../test/support/scimmy-vectors.js';
import { applyPatch, type PatchOperation } from './scim-patch.engine.js';
import { ScimPatchError } from './scim-patch.errors.js';

const vectors = loadScimmyPatchVectors();

interface Deviation {
  /** Needs `filterOptions: { allowUnquotedStrings: true }`; asserted to fail with invalidPath without it. */
  readonly unquoted?: true;
  /** Our expected result where it intentionally differs from scimmy's target. */
  readonly target?: Record<string, unknown>;
  readonly reason: string;
}

const DEVIATIONS = new Map<string, Deviation>([
  [
    'add #3',
    {
      unquoted: true,
      reason: 'path "members[value eq 123abc].$ref" has an unquoted filter value (RFC 7644 requires a quoted string)',
    },
  ],
  ['remove #7', { unquoted: true, reason: 'path "members[value eq 123abc]" has an unquoted filter value (RFC 7644 requires a quoted string)' }],
  [
    'replace #1',
    {
      target: { id: '1234', userName: 'asdf', name: { honorificPrefix: 'Mr', formatted: 'Test' } },
      reason:
        'RFC 7644 §3.5.2.3: replacing a complex attribute leaves "Sub-attributes that are not specified in the value ' +
        'parameter … unchanged"; scimmy drops name.honorificPrefix',
    },
  ],
]);

function run(vector: ScimmyPatchVector, unquoted: boolean): Record<string, unknown> {
  const ops: readonly PatchOperation[] = vector.ops;
  return applyPatch(vector.source, ops, unquoted ? { filterOptions: { allowUnquotedStrings: true } } : {});
}

describe('scimmy PatchOp vectors', () => {
  for (const [group, cases] of Object.entries(vectors)) {
    describe(group, () => {
      cases.forEach((vector, index) => {
        const id = `${group} #${index}`;
        const deviation = DEVIATIONS.get(id);
        const title = `${id}: ${JSON.stringify(vector.ops)}${deviation === undefined ? '' : `  [${deviation.reason}]`}`;
        it(title, () => {
          const before = structuredClone(vector.source);
          if (deviation?.unquoted === true) {
            assert.throws(
              () => run(vector, false),
              (e: unknown) => e instanceof ScimPatchError && e.scimType === 'invalidPath',
            );
          }
          const result = run(vector, deviation?.unquoted === true);
          assert.deepEqual(result, deviation?.target ?? vector.target);
          assert.deepEqual(vector.source, before, 'the input resource is not modified');
        });
      });
    });
  }

  it('covers all 18 vectors', () => {
    assert.equal(
      Object.values(vectors).reduce((n, cases) => n + cases.length, 0),
      18,
    );
  });
});
