import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const patchOp = (...operations: unknown[]) => ({ schemas: [PATCH_OP], Operations: operations });

describe('SCIM /Groups (RFC 7643 §4.2, RFC 7644 §3) as Entra ID and Okta use it', () => {
  const svc = useService();
  let t: ScimTenant;
  let other: ScimTenant;
  const users: string[] = [];

  async function group(displayName = unique('Group'), members: string[] = [], extra: Record<string, unknown> = {}): Promise<any> {
    const res = await t.scim('POST', '/Groups', { body: { schemas: [GROUP], displayName, members: members.map((value) => ({ value })), ...extra } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function members(id: string): Promise<string[]> {
    const res = await t.scim('GET', `/Groups/${id}`);
    assert.equal(res.status, 200, res.text);
    return (res.body.members ?? []).map((m: { value: string }) => m.value).sort();
  }

  const sorted = (...ids: string[]) => [...ids].sort();

  before(async () => {
    t = await scimTenant(svc);
    other = await scimTenant(svc);
    for (let i = 0; i < 4; i++) users.push((await createUser(t, userBody(unique('member'), { displayName: `Member ${i}` }))).id);
  });

  it('creates a group with members (201, Location, members with display and $ref) and reads it back', async () => {
    const created = await group('Engineering ' + unique('x'), [users[0], users[1]], { externalId: 'entra-7' });
    const res = await t.scim('GET', `/Groups/${created.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.schemas, [GROUP]);
    assert.equal(res.body.externalId, 'entra-7');
    assert.equal(res.body.meta.resourceType, 'Group');
    assert.match(res.body.meta.location, new RegExp(`/scim/v2/${t.orgId}/Groups/${created.id}$`));
    assert.equal(res.body.meta.version, created.meta.version);
    const first = res.body.members.find((m: { value: string }) => m.value === users[0]);
    assert.deepEqual(first, { value: users[0], display: 'Member 0', $ref: `${svc.url}/scim/v2/${t.orgId}/Users/${users[0]}`, type: 'User' });
    assert.deepEqual(await members(created.id), sorted(users[0], users[1]));
  });

  it('leaves members out for excludedAttributes=members (Entra ID) and attributes=displayName', async () => {
    const g = await group(undefined, [users[0]]);
    const excluded = await t.scim('GET', `/Groups/${g.id}?excludedAttributes=members`);
    assert.equal(excluded.status, 200, excluded.text);
    assert.equal(excluded.body.members, undefined);
    assert.equal(excluded.body.displayName, g.displayName);
    const only = await t.scim('GET', `/Groups/${g.id}?attributes=displayName`);
    assert.deepEqual(Object.keys(only.body).sort(), ['displayName', 'id', 'schemas']);
  });

  describe('PATCH bodies recorded from Entra ID and Okta, each with the membership it leaves', () => {
    const cases: Array<[string, (ids: string[], g: any) => unknown, (ids: string[]) => string[], string[]?]> = [
      ['Entra default: Add', (u) => patchOp({ op: 'Add', path: 'members', value: [{ value: u[2] }] }), (u) => [u[0], u[2]]],
      ['Entra default: Remove with a value array', (u) => patchOp({ op: 'Remove', path: 'members', value: [{ value: u[0] }] }), () => []],
      ['Entra aadOptscim062020: remove by value filter', (u) => patchOp({ op: 'remove', path: `members[value eq "${u[0]}"]` }), () => []],
      [
        'Entra: two operations in one request',
        (u) => patchOp({ op: 'Add', path: 'members', value: [{ value: u[1] }] }, { op: 'Remove', path: 'members', value: [{ value: u[0] }] }),
        (u) => [u[1]],
      ],
      [
        'Okta: add several with display',
        (u) =>
          patchOp({
            op: 'add',
            path: 'members',
            value: [
              { value: u[1], display: 'x' },
              { value: u[2], display: 'y' },
            ],
          }),
        (u) => [u[0], u[1], u[2]],
      ],
      ['Okta: replace members with the full list', (u) => patchOp({ op: 'replace', path: 'members', value: [{ value: u[3] }] }), (u) => [u[3]]],
      ['replace members with [] empties the group', () => patchOp({ op: 'replace', path: 'members', value: [] }), () => []],
      ['remove members without a value removes all', () => patchOp({ op: 'remove', path: 'members' }), () => []],
      ['adding a present member changes nothing', (u) => patchOp({ op: 'add', path: 'members', value: [{ value: u[0] }] }), (u) => [u[0]]],
      ['removing an absent member changes nothing', (u) => patchOp({ op: 'remove', path: `members[value eq "${u[3]}"]` }), (u) => [u[0]]],
      [
        'Okta and Entra: path-less replace of {id, displayName} renames',
        (_u, g) => patchOp({ op: 'replace', value: { id: g.id, displayName: `${g.displayName} renamed` } }),
        (u) => [u[0]],
        ['renamed'],
      ],
      [
        'Entra default: Replace displayName by path',
        (_u, g) => patchOp({ op: 'Replace', path: 'displayName', value: `${g.displayName} (2)` }),
        (u) => [u[0]],
        ['(2)'],
      ],
    ];
    for (const [name, body, expected, renamed] of cases) {
      it(name, async () => {
        const g = await group(undefined, [users[0]]);
        const res = await t.scim('PATCH', `/Groups/${g.id}`, { body: body(users, g) });
        assert.equal(res.status, 204, res.text);
        assert.deepEqual(await members(g.id), sorted(...expected(users)));
        const after = await t.scim('GET', `/Groups/${g.id}?excludedAttributes=members`);
        if (renamed) assert.ok(after.body.displayName.endsWith(renamed[0]), after.body.displayName);
        else assert.equal(after.body.displayName, g.displayName);
      });
    }
  });

  it('a refused PATCH changes nothing: unknown user, user of another organization, bad path — all or nothing', async () => {
    const g = await group(undefined, [users[0]]);
    const stranger = (await createUser(other, userBody(unique('stranger')))).id;
    for (const [operations, scimType] of [
      [
        [
          { op: 'add', path: 'members', value: [{ value: users[1] }] },
          { op: 'add', path: 'members', value: [{ value: 'no-such-user' }] },
        ],
        'invalidValue',
      ],
      [[{ op: 'add', path: 'members', value: [{ value: stranger }] }], 'invalidValue'],
      [
        [
          { op: 'remove', path: 'members' },
          { op: 'replace', path: 'nickName', value: 'x' },
        ],
        'invalidPath',
      ],
      [[{ op: 'add', path: 'members', value: 'string id 1' }], 'invalidValue'],
    ] as const) {
      const res = await t.scim('PATCH', `/Groups/${g.id}`, { body: patchOp(...operations) });
      assertScimError(res, 400, scimType);
      assert.deepEqual(await members(g.id), [users[0]]);
    }
  });

  it('PUT replaces name, external id and members (none when absent), answering the group', async () => {
    const g = await group(undefined, [users[0], users[1]], { externalId: 'e-1' });
    const put = await t.scim('PUT', `/Groups/${g.id}`, {
      body: { schemas: [GROUP], id: g.id, displayName: `${g.displayName}-put`, members: [{ value: users[2], display: 'VP' }] },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.displayName, `${g.displayName}-put`);
    assert.equal(put.body.externalId, undefined);
    assert.deepEqual(
      put.body.members.map((m: { value: string }) => m.value),
      [users[2]],
    );
    const bare = await t.scim('PUT', `/Groups/${g.id}`, { body: { schemas: [GROUP], displayName: `${g.displayName}-bare` } });
    assert.equal(bare.status, 200, bare.text);
    assert.deepEqual(await members(g.id), []);
  });

  it('display names are unique per organization ignoring case (409 uniqueness), on create, PUT and PATCH', async () => {
    const name = unique('Unique');
    await group(name);
    assertScimError(await t.scim('POST', '/Groups', { body: { schemas: [GROUP], displayName: name.toUpperCase() } }), 409, 'uniqueness');
    const second = await group();
    assertScimError(await t.scim('PUT', `/Groups/${second.id}`, { body: { schemas: [GROUP], displayName: name.toLowerCase() } }), 409, 'uniqueness');
    assertScimError(await t.scim('PATCH', `/Groups/${second.id}`, { body: patchOp({ op: 'replace', path: 'displayName', value: name }) }), 409, 'uniqueness');
    assert.equal((await other.scim('POST', '/Groups', { body: { schemas: [GROUP], displayName: name } })).status, 201, 'another organization may use it');
  });

  it('refuses bad bodies with 400 and creates nothing', async () => {
    const before = (await t.scim('GET', '/Groups?count=0')).body.totalResults;
    const bodies: Array<[unknown, string]> = [
      [{ displayName: 'no schemas' }, 'invalidSyntax'],
      [{ schemas: [GROUP] }, 'invalidValue'],
      [{ schemas: [GROUP], displayName: '  ' }, 'invalidValue'],
      [{ schemas: [GROUP], displayName: 'x', DisplayName: 'y' }, 'invalidSyntax'],
      [{ schemas: [GROUP], displayName: 'x', members: [{ value: users[0], VALUE: users[1] }] }, 'invalidSyntax'],
      [{ schemas: [GROUP], displayName: 'x', members: [{ value: users[0], type: 'Group' }] }, 'invalidValue'],
      [{ schemas: [GROUP], displayName: 'x', owner: 'me' }, 'invalidSyntax'],
      [{ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], displayName: 'x' }, 'invalidSyntax'],
      [{ schemas: [GROUP], displayName: unique('x'), members: [{ value: 'no-such-user' }] }, 'invalidValue'],
    ];
    for (const [body, scimType] of bodies) assertScimError(await t.scim('POST', '/Groups', { body }), 400, scimType);
    assert.equal((await t.scim('GET', '/Groups?count=0')).body.totalResults, before);
  });

  it('filters by displayName (ignoring case), externalId, id and member; sorts and pages', async () => {
    const tag = unique('flt');
    const a = await group(`${tag}-Alpha`, [users[0]], { externalId: `${tag}-ext-a` });
    const b = await group(`${tag}-beta`, [users[1]]);
    const c = await group(`${tag}-Gamma`, [users[0], users[1]]);
    const ids = async (query: string) => {
      const res = await t.scim('GET', `/Groups?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.Resources.map((r: { id: string }) => r.id);
    };
    assert.deepEqual(await ids(`filter=${encodeURIComponent(`displayName eq "${tag.toUpperCase()}-ALPHA"`)}&excludedAttributes=members`), [a.id]);
    assert.deepEqual(await ids(`filter=${encodeURIComponent(`externalId eq "${tag}-ext-a"`)}`), [a.id]);
    assert.deepEqual(await ids(`filter=${encodeURIComponent(`id eq "${b.id}"`)}`), [b.id]);
    assert.deepEqual(await ids(`filter=${encodeURIComponent(`displayName sw "${tag}" and members[value eq "${users[1]}"]`)}&sortBy=displayName`), [b.id, c.id]);
    assert.deepEqual(
      await ids(`filter=${encodeURIComponent(`displayName sw "${tag}" and members eq "${users[0]}"`)}&sortBy=displayName&sortOrder=descending`),
      [c.id, a.id],
    );
    const page = await t.scim('GET', `/Groups?filter=${encodeURIComponent(`displayName sw "${tag}"`)}&sortBy=displayName&startIndex=2&count=1`);
    assert.deepEqual([page.body.totalResults, page.body.itemsPerPage, page.body.startIndex, page.body.Resources[0].id], [3, 1, 2, b.id]);
    for (const [startIndex, count, resources] of [
      [3, 5, 1],
      [4, 5, 0],
      [9, 2, 0],
      [1, 0, 0],
    ]) {
      const res = await t.scim('GET', `/Groups?filter=${encodeURIComponent(`displayName sw "${tag}"`)}&startIndex=${startIndex}&count=${count}`);
      assert.deepEqual([res.body.totalResults, res.body.Resources.length], [3, resources], `startIndex ${startIndex}, count ${count}`);
    }
    const searched = await t.scim('POST', '/Groups/.search', {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: `displayName sw "${tag}"`, excludedAttributes: ['members'] },
    });
    assert.equal(searched.status, 200, searched.text);
    assert.equal(searched.body.totalResults, 3);
    assert.ok(searched.body.Resources.every((r: Record<string, unknown>) => r.members === undefined));
    assertScimError(await t.scim('GET', `/Groups?filter=${encodeURIComponent('title eq "x"')}`), 400, 'invalidFilter');
    assertScimError(await t.scim('GET', '/Groups?sortBy=members'), 400, 'invalidValue');
  });

  it("another organization's group is 404 on every route, and DELETE is 204 then 404", async () => {
    const g = await group(undefined, [users[0]]);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { schemas: [GROUP], displayName: 'x' }],
      ['PATCH', patchOp({ op: 'remove', path: 'members' })],
      ['DELETE', undefined],
    ] as const) {
      assertScimError(await other.scim(method, `/Groups/${g.id}`, { body }), 404);
    }
    assert.deepEqual(await members(g.id), [users[0]]);
    assert.equal((await t.scim('DELETE', `/Groups/${g.id}`)).status, 204);
    assertScimError(await t.scim('GET', `/Groups/${g.id}`), 404);
    assertScimError(await t.scim('DELETE', `/Groups/${g.id}`), 404);
  });

  it('20 parallel single-member PATCHes (as Entra sends them), then 20 parallel removes, lose nothing', async () => {
    const many = await Promise.all(Array.from({ length: 20 }, () => createUser(t, userBody(unique('parallel'))).then((u) => u.id as string)));
    const g = await group();
    const adds = await Promise.all(
      many.map((id) => t.scim('PATCH', `/Groups/${g.id}`, { body: patchOp({ op: 'Add', path: 'members', value: [{ value: id }] }) })),
    );
    assert.deepEqual([...new Set(adds.map((r) => r.status))], [204]);
    assert.deepEqual(await members(g.id), sorted(...many));
    const removes = await Promise.all(
      many.map((id) => t.scim('PATCH', `/Groups/${g.id}`, { body: patchOp({ op: 'remove', path: `members[value eq "${id}"]` }) })),
    );
    assert.deepEqual([...new Set(removes.map((r) => r.status))], [204]);
    assert.deepEqual(await members(g.id), []);
  });

  it("a user's groups are read-only on /Users: listed with $ref and type direct, left out when excluded, ignored on PUT", async () => {
    const user = await createUser(t, userBody(unique('grouped')));
    const [g1, g2] = [await group(`a-${unique('g')}`, [user.id]), await group(`b-${unique('g')}`, [user.id])];
    const res = await t.scim('GET', `/Users/${user.id}`);
    assert.deepEqual(
      res.body.groups,
      [g1, g2].map((g) => ({ value: g.id, display: g.displayName, $ref: `${svc.url}/scim/v2/${t.orgId}/Groups/${g.id}`, type: 'direct' })),
    );
    const listed = await t.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${user.userName}"`)}`);
    assert.deepEqual(
      listed.body.Resources[0].groups.map((g: { value: string }) => g.value),
      [g1.id, g2.id],
    );
    assert.equal((await t.scim('GET', `/Users/${user.id}?excludedAttributes=groups`)).body.groups, undefined);
    const put = await t.scim('PUT', `/Users/${user.id}`, { body: { ...userBody(user.userName), groups: [] } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(await members(g1.id), [user.id], 'groups sent in a User body change nothing');
    assert.equal((await t.scim('DELETE', `/Users/${user.id}`)).status, 204);
    assert.deepEqual([await members(g1.id), await members(g2.id)], [[], []], 'a deleted user leaves its groups');
  });

  it('Bulk carries Group operations, with members named by bulkId of users created earlier in the request', async () => {
    const name = unique('bulk');
    const res = await t.scim('POST', '/Bulk', {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
        Operations: [
          { method: 'POST', path: '/Users', bulkId: 'u1', data: userBody(`${name}-1`) },
          { method: 'POST', path: '/Users', bulkId: 'u2', data: userBody(`${name}-2`) },
          { method: 'POST', path: '/Groups', bulkId: 'g1', data: { schemas: [GROUP], displayName: name, members: [{ value: 'bulkId:u1' }] } },
          { method: 'PATCH', path: '/Groups/bulkId:g1', data: patchOp({ op: 'add', path: 'members', value: [{ value: 'bulkId:u2' }] }) },
          { method: 'PATCH', path: '/Groups/bulkId:g1', data: patchOp({ op: 'add', path: 'members', value: [{ value: 'no-such-user' }] }) },
          {
            method: 'PUT',
            path: '/Groups/bulkId:g1',
            data: { schemas: [GROUP], displayName: `${name}-renamed`, members: [{ value: 'bulkId:u1' }, { value: 'bulkId:u2' }] },
          },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const ops = res.body.Operations;
    assert.deepEqual(
      ops.map((o: { status: string }) => o.status),
      ['201', '201', '201', '204', '400', '200'],
    );
    const groupId = ops[2].location.split('/').pop();
    assert.match(ops[2].location, new RegExp(`/scim/v2/${t.orgId}/Groups/${groupId}$`));
    assert.equal(ops[4].location, ops[2].location, 'a failed PATCH carries its location');
    assert.equal(ops[4].response.scimType, 'invalidValue');
    const userIds = [ops[0], ops[1]].map((o: { location: string }) => o.location.split('/').pop() as string);
    assert.deepEqual(await members(groupId), sorted(...userIds));
    const deleted = await t.scim('POST', '/Bulk', {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [{ method: 'DELETE', path: `/Groups/${groupId}` }] },
    });
    assert.deepEqual(
      deleted.body.Operations.map((o: { status: string }) => o.status),
      ['204'],
    );
    assertScimError(await t.scim('GET', `/Groups/${groupId}`), 404);
  });

  it('discovery lists the Group resource type and schema', async () => {
    const types = await t.scim('GET', '/ResourceTypes');
    assert.deepEqual(types.body.Resources.map((r: { name: string }) => r.name).sort(), ['Group', 'User']);
    const schema = await t.scim('GET', `/Schemas/${GROUP}`);
    assert.equal(schema.status, 200, schema.text);
    assert.deepEqual(
      schema.body.attributes.map((a: { name: string }) => a.name),
      ['displayName', 'members'],
    );
  });
});
