/** scimmy's ListResponse vectors (test/fixtures/scimmy/listresponse.json): sorting and paging windows over real rows. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadScimmyListVectors } from '../support/scimmy-vectors.js';
import { USER_SCHEMA, createUser, scimTenant } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { useService } from '../support/fixtures.js';

const vectors = loadScimmyListVectors();

/**
 * Vectors on sortable attributes (userName, emails; docs/product-rules.md); `name.formatted`, `date`, `number`
 * and `list` are not User attributes or not sortable here.
 */
const SORTABLE = new Set(['userName', 'emails']);

describe('scimmy ListResponse vectors', () => {
  const svc = useService();
  let t: ScimTenant;
  const idOf = new Map<string, number>();
  before(async () => {
    t = await scimTenant(svc);
    for (const source of vectors.source) {
      const emails = (source.emails ?? []).map((e) => ({ value: e.value, ...(e.primary ? { primary: true } : {}) }));
      const user = await createUser(t, { schemas: [USER_SCHEMA], userName: source.userName, ...(emails.length ? { emails } : {}) });
      idOf.set(user.id, source.id);
    }
  });

  for (const target of vectors.targets.sortBy.filter((v) => SORTABLE.has(v.sortBy))) {
    it(`sortBy ${target.sortBy} ${target.sortOrder ?? 'ascending'}`, async () => {
      const res = await t.scim('GET', `/Users?sortBy=${target.sortBy}${target.sortOrder ? `&sortOrder=${target.sortOrder}` : ''}`);
      assert.deepEqual(
        res.body.Resources.map((u: any) => idOf.get(u.id)),
        target.expected,
      );
    });
  }

  for (const target of vectors.targets.startIndex.filter((v) => v.sourceRange === undefined)) {
    it(`startIndex ${target.startIndex}, count ${target.itemsPerPage ?? 'default'}`, async () => {
      const count = target.itemsPerPage === undefined ? '' : `&count=${target.itemsPerPage}`;
      const res = await t.scim('GET', `/Users?sortBy=meta.created&startIndex=${target.startIndex}${count}`);
      assert.deepEqual(
        res.body.Resources.map((u: any) => idOf.get(u.id)),
        target.expected,
      );
      assert.equal(res.body.startIndex, target.startIndex);
      assert.equal(res.body.itemsPerPage, target.expected.length);
      assert.equal(res.body.totalResults, vectors.source.length);
    });
  }
});
