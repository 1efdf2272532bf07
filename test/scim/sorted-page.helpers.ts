import assert from 'node:assert/strict';
import { USER_SCHEMA } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

/** More users than one checkpoint spacing (1,000, src/users/user-order-checkpoints.ts) twice over. */
export const MANY = 2_300;

export interface Listed {
  id: string;
  userName: string;
}

/** `count` users named from a shuffled number, lower-case ASCII so that JavaScript orders them as both databases do. */
export async function seedMany(t: ScimTenant, count: number, prefix: string): Promise<void> {
  for (let first = 0; first < count; first += 100) {
    const Operations = Array.from({ length: Math.min(100, count - first) }, (_, k) => {
      const n = ((first + k) * 7919) % 100_003;
      return {
        method: 'POST',
        path: '/Users',
        bulkId: `u${first + k}`,
        data: { schemas: [USER_SCHEMA], userName: `${prefix}.${n}`, name: { givenName: 'Page', familyName: `F${n % 13}` } },
      };
    });
    const res = await t.scim('POST', '/Bulk', { body: { schemas: [BULK], Operations } });
    assert.equal(res.status, 200, res.text);
    for (const op of res.body.Operations) assert.equal(op.status, '201', JSON.stringify(op));
  }
}

/** Every human user, ordered as RFC 7644 §3.4.2.3 sorting by userName (or id), then id, would give. */
export async function reference(t: ScimTenant, by: 'userName' | 'id', descending: boolean): Promise<Listed[]> {
  const all: Listed[] = [];
  for (let start = 1; ; start += 100) {
    const res = await t.scim('GET', `/Users?count=100&startIndex=${start}&attributes=userName&sortBy=meta.created`);
    assert.equal(res.status, 200, res.text);
    all.push(...res.body.Resources.map((u: Listed) => ({ id: u.id, userName: u.userName })));
    if (res.body.Resources.length < 100) break;
  }
  const key = (u: Listed) => (by === 'id' ? u.id : u.userName.toLowerCase());
  const cmp = (a: Listed, b: Listed) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  all.sort((a, b) => (descending ? -cmp(a, b) : cmp(a, b)));
  return all;
}

/** The page at `startIndex` equals the reference's slice, with the reference's total. */
export async function assertPage(
  t: ScimTenant,
  expected: Listed[],
  by: 'userName' | 'id',
  descending: boolean,
  startIndex: number,
  count = 100,
  headers: Record<string, string> = {},
): Promise<void> {
  const order = descending ? '&sortOrder=descending' : '';
  const res = await t.scim('GET', `/Users?sortBy=${by}${order}&startIndex=${startIndex}&count=${count}&attributes=userName`, { headers });
  assert.equal(res.status, 200, res.text);
  const want = expected.slice(startIndex - 1, startIndex - 1 + count).map((u) => u.id);
  assert.deepEqual(
    res.body.Resources.map((u: Listed) => u.id),
    want,
    `sortBy=${by}${order} startIndex=${startIndex} count=${count}`,
  );
  assert.equal(res.body.totalResults, expected.length);
  assert.equal(res.body.startIndex, startIndex);
}
