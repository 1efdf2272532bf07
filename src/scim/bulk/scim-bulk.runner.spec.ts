/** The scimmy BulkRequest vectors (test/fixtures/scimmy/bulkrequest.json) against the runner. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadScimmyBulkVectors } from '../../../test/support/scimmy-vectors.js';
import { ScimError } from '../errors/scim-error.js';
import { readBulkRequest } from './scim-bulk.request.js';
import type { BulkExecutor } from './scim-bulk.runner.js';
import { runBulk } from './scim-bulk.runner.js';

const vectors = loadScimmyBulkVectors();

const SCHEMAS = ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'];

/** scimmy's `/Test` resource type: POST creates, DELETE needs an id. */
function testResource(): { execute: BulkExecutor; seen: unknown[] } {
  let next = 1;
  const seen: unknown[] = [];
  return {
    seen,
    execute: async (op) => {
      seen.push(op.data);
      if (op.method === 'POST' && op.path === '/Test') return { status: 201, id: String(next++) };
      if (op.method === 'DELETE' && /^\/Test\/[^/]+$/.test(op.path)) return { status: 204 };
      throw new ScimError(404, `no resource at ${op.path}`);
    },
  };
}

describe('bulk runner: scimmy failOnErrors vectors', () => {
  for (const [i, vector] of vectors.failOnErrors.entries()) {
    it(`vector ${i}: failOnErrors ${vector.source.failOnErrors} → ${vector.target.join(', ')}`, async () => {
      const results = await runBulk(readBulkRequest({ schemas: SCHEMAS, ...vector.source }), testResource().execute);
      assert.deepEqual(
        results.map((r) => r.status),
        vector.target,
      );
      for (const r of results.filter((x) => Number(x.status) >= 400)) assert.equal((r.response as { status: string }).status, r.status);
    });
  }
});

describe('bulk runner: bulkId references', () => {
  it('resolves references to earlier operations in paths and inside data', async () => {
    const resource = testResource();
    const results = await runBulk(
      readBulkRequest({
        schemas: SCHEMAS,
        Operations: [
          { method: 'POST', path: '/Test', bulkId: 'a', data: { displayName: 'A' } },
          { method: 'POST', path: '/Test', bulkId: 'b', data: { members: [{ value: 'bulkId:a' }] } },
          { method: 'DELETE', path: '/Test/bulkId:b' },
        ],
      }),
      resource.execute,
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['201', '201', '204'],
    );
    assert.deepEqual(resource.seen[1], { members: [{ value: '1' }] });
  });

  // Operations run in order; RFC 7644 §3.7.1 lets a provider answer 409 when it does not resolve
  // circular references, which is what scimmy's "unordered"/"circular" vectors are: each first
  // operation points at a later one. scimmy creates both (status 201) — we report the first as 409.
  for (const [kind, list] of Object.entries(vectors.bulkId)) {
    for (const [i, vector] of list.entries()) {
      it(`${kind} vector ${i}: forward references are 409, the rest proceeds`, async () => {
        const results = await runBulk(readBulkRequest({ schemas: SCHEMAS, ...vector.source }), testResource().execute);
        assert.equal(results.length, vector.target.length);
        assert.equal(results[0].status, '409');
        assert.equal((results[0].response as { scimType: string }).scimType, 'invalidValue');
      });
    }
  }

  it('refuses more than 100 operations with 413 and bad envelopes with 400', () => {
    const op = { method: 'DELETE', path: '/Test/1' };
    assert.throws(
      () => readBulkRequest({ schemas: SCHEMAS, Operations: Array(101).fill(op) }),
      (e: ScimError) => e.status === 413,
    );
    assert.throws(
      () => readBulkRequest({ Operations: [op] }),
      (e: ScimError) => e.scimType === 'invalidSyntax',
    );
    assert.throws(
      () => readBulkRequest({ schemas: SCHEMAS, Operations: [] }),
      (e: ScimError) => e.scimType === 'invalidSyntax',
    );
    assert.throws(
      () => readBulkRequest({ schemas: SCHEMAS, failOnErrors: 0, Operations: [op] }),
      (e: ScimError) => e.scimType === 'invalidValue',
    );
  });
});
