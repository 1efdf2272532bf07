import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { unique, useService } from '../support/fixtures.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

/** RFC 9865 cursor paging of /Users and /Groups, checked against the same query paged by startIndex. */
describe('SCIM cursor pagination (RFC 9865)', () => {
  const svc = useService();
  let t: ScimTenant;
  const FAMILIES = ['Vance', undefined, 'Archie', 'Bowen', undefined, 'Vance', 'Cole', 'Bowen', 'Adams', undefined, 'Diaz', 'Vance', 'Evans'];

  before(async () => {
    t = await scimTenant(svc);
    for (const [i, family] of FAMILIES.entries()) {
      const name = family ? { givenName: `G${i}`, familyName: family } : { givenName: `G${i}` };
      await createUser(t, userBody(`${i % 2 ? 'c' : 'd'}${i}-${unique('cursor')}`, { name }));
    }
  });

  /** The ids of the query paged by startIndex in one page: the order the cursor walk must give. */
  async function byIndex(resource: string, query: string): Promise<string[]> {
    const res = await t.scim('GET', `/${resource}?count=100${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.Resources.map((r: { id: string }) => r.id);
  }

  /** Every page by cursor from `cursor=`, following nextCursor until a page has none. */
  async function walk(resource: string, query: string, count: number, between?: (page: number) => Promise<void>) {
    const ids: string[] = [];
    let cursor = '';
    for (let page = 0; page < 100; page++) {
      const res = await t.scim('GET', `/${resource}?count=${count}&cursor=${cursor}${query}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.startIndex, undefined, 'a page by cursor has no startIndex');
      assert.ok(res.body.Resources.length <= count);
      ids.push(...res.body.Resources.map((r: { id: string }) => r.id));
      if (res.body.nextCursor === undefined) return { ids, total: res.body.totalResults as number, pages: page + 1 };
      assert.match(res.body.nextCursor, /^[A-Za-z0-9_-]+$/, 'only RFC 3986 unreserved characters');
      assert.equal(res.body.Resources.length, count, 'every page but the last is full');
      cursor = res.body.nextCursor;
      await between?.(page);
    }
    throw new Error('the walk did not end');
  }

  it('walks every user once, in the order startIndex gives, and advertises it', async () => {
    const expected = await byIndex('Users', '');
    assert.equal(expected.length, FAMILIES.length);
    const walked = await walk('Users', '', 4);
    assert.deepEqual(walked.ids, expected);
    assert.equal(walked.total, FAMILIES.length);
    assert.equal(walked.pages, 4);
    for (const resource of ['Users', 'Groups']) {
      const none = await t.scim('GET', `/${resource}?count=0&cursor=`);
      assert.equal(none.status, 200, none.text);
      assert.deepEqual([none.body.totalResults, none.body.Resources, none.body.nextCursor], [resource === 'Users' ? FAMILIES.length : 0, [], undefined]);
    }

    const spc = await t.scim('GET', '/ServiceProviderConfig');
    assert.equal(spc.status, 200, spc.text);
    assert.deepEqual(spc.body.pagination, { cursor: true, index: true, defaultPaginationMethod: 'index', defaultPageSize: 100, maxPageSize: 100 });
  });

  it('follows sortBy and sortOrder, unassigned values last, ties by id', async () => {
    for (const sort of ['name.familyName', 'userName', 'meta.created', 'id', 'emails']) {
      for (const order of ['ascending', 'descending']) {
        const query = `&sortBy=${sort}&sortOrder=${order}`;
        assert.deepEqual((await walk('Users', query, 3)).ids, await byIndex('Users', query), query);
      }
    }
  });

  it('pages a filter, and a search by POST', async () => {
    const query = `&filter=${encodeURIComponent('userName sw "c"')}&sortBy=name.familyName`;
    const expected = await byIndex('Users', query);
    assert.equal(expected.length, Math.floor(FAMILIES.length / 2));
    const walked = await walk('Users', query, 2);
    assert.deepEqual(walked.ids, expected);
    assert.equal(walked.total, expected.length);

    const first = await t.scim('POST', '/Users/.search', {
      body: { schemas: [SEARCH], filter: 'userName sw "c"', sortBy: 'name.familyName', count: 2, cursor: '' },
    });
    assert.equal(first.status, 200, first.text);
    const second = await t.scim('POST', '/Users/.search', {
      body: { schemas: [SEARCH], filter: 'userName sw "c"', sortBy: 'name.familyName', count: 2, cursor: first.body.nextCursor },
    });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      [...first.body.Resources, ...second.body.Resources].map((r: { id: string }) => r.id),
      expected.slice(0, 4),
    );
  });

  it('sees every user once while others are created during the walk', async () => {
    const before = new Set(await byIndex('Users', ''));
    const created: string[] = [];
    const walked = await walk('Users', '', 3, async () => {
      created.push((await createUser(t, userBody(unique('during'), {}))).id);
    });
    assert.equal(new Set(walked.ids).size, walked.ids.length, 'no user twice');
    for (const id of before) assert.ok(walked.ids.includes(id), `user ${id} was skipped`);
    // Created after the position the walk had reached, in creation order: each is still ahead of it.
    for (const id of created) assert.ok(walked.ids.includes(id), `user ${id}, created during the walk, was skipped`);
  });

  it('walks groups, sorted by a key with unassigned values', async () => {
    const t2 = await scimTenant(svc);
    for (let i = 0; i < 7; i++) {
      const res = await t2.scim('POST', '/Groups', {
        body: { schemas: [GROUP], displayName: `g${i}-${unique('grp')}`, ...(i % 3 ? { externalId: `x${i % 4}` } : {}) },
      });
      assert.equal(res.status, 201, res.text);
    }
    const tenant = t;
    t = t2;
    try {
      for (const query of ['', '&sortBy=externalId', '&sortBy=externalId&sortOrder=descending', '&sortBy=displayName&sortOrder=descending']) {
        const walked = await walk('Groups', query, 2);
        assert.deepEqual(walked.ids, await byIndex('Groups', query), query);
        assert.equal(walked.total, 7);
      }
    } finally {
      t = tenant;
    }
  });

  it('refuses a cursor it did not give for this query with 400 invalidCursor', async () => {
    const first = await t.scim('GET', '/Users?count=2&cursor=&sortBy=userName');
    assert.equal(first.status, 200, first.text);
    const cursor: string = first.body.nextCursor;
    const shapes = [
      'not a cursor!',
      `${cursor}x`,
      Buffer.from('{"a":1}').toString('base64url'),
      Buffer.from('["userNameLower",0,{"x":1},"abc"]').toString('base64url'),
      Buffer.from('["userNameLower",0,"a","../../etc"]').toString('base64url'),
      Buffer.from('["userNameLower",0,null,"abc"]').toString('base64url'),
      Buffer.from('["createdAt",0,"not a number","abc"]').toString('base64url'),
    ];
    for (const bad of shapes) assertScimError(await t.scim('GET', `/Users?count=2&sortBy=userName&cursor=${encodeURIComponent(bad)}`), 400, 'invalidCursor');
    // The same cursor under another order, or for the other resource type, names no position there.
    assertScimError(await t.scim('GET', `/Users?count=2&sortBy=userName&sortOrder=descending&cursor=${cursor}`), 400, 'invalidCursor');
    assertScimError(await t.scim('GET', `/Users?count=2&cursor=${cursor}`), 400, 'invalidCursor');
    assertScimError(await t.scim('GET', `/Groups?count=2&cursor=${cursor}`), 400, 'invalidCursor');
    assertScimError(await t.scim('GET', `/Users?count=2&startIndex=3&cursor=${cursor}`), 400, 'invalidValue');
    // The cursor itself still works: it does not expire.
    const next = await t.scim('GET', `/Users?count=2&sortBy=userName&cursor=${cursor}`);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.Resources.length, 2);
    assert.equal(next.body.Resources[0].schemas[0], USER_SCHEMA);
  });
});
