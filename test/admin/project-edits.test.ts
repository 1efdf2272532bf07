import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, badRequest, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

/** docs/product-rules.md, "Changing and removing resources": projects. */
describe('management API: reading, renaming and removing projects', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const base = (orgId: string) => `/management/v1/orgs/${orgId}/projects`;

  async function project(org: OrgSetup, name = unique('project')): Promise<string> {
    const res = await svc.api('POST', base(org.org.id), { token: org.owner.token, body: { name } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  it('lists the organization’s projects with their total, paged by limit and offset', async () => {
    const org = await setUpOrg(svc);
    const names = [unique('p1'), unique('p2'), unique('p3')];
    const ids = [];
    for (const name of names) ids.push(await project(org, name));
    await project(b);

    const all = await svc.api('GET', base(org.org.id), { token: org.owner.token });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body, { projects: ids.map((id, i) => ({ id, name: names[i] })), total: 3 });

    const page = await svc.api('GET', `${base(org.org.id)}?limit=1&offset=1`, { token: org.owner.token });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body, { projects: [{ id: ids[1], name: names[1] }], total: 3 });

    const past = await svc.api('GET', `${base(org.org.id)}?offset=10`, { token: org.owner.token });
    assert.deepEqual(past.body, { projects: [], total: 3 });
  });

  it('refuses bad paging with 400 naming the parameter', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'offset=-1', 'offset=1.5', 'sort=name']) {
      const field = query.split('=')[0];
      await badRequest(svc, [field], () => svc.api('GET', `${base(a.org.id)}?${query}`, { token: a.owner.token }), query);
    }
  });

  it('gets one project', async () => {
    const name = unique('one');
    const id = await project(a, name);
    const res = await svc.api('GET', `${base(a.org.id)}/${id}`, { token: a.owner.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id, name });
  });

  it('renames a project: 200 {id,name}, its row, and project.changed; the same name again writes nothing', async () => {
    const id = await project(a);
    const name = unique('renamed');
    const res = await svc.api('PATCH', `${base(a.org.id)}/${id}`, { token: a.owner.token, body: { name } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id, name });
    assert.equal((await row(svc, 'SELECT name FROM projects WHERE id = ?', [id])).name, name);
    const event = await theEvent(svc, 'project.changed', id);
    assert.equal(event.aggregate.type.type, 'project');
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { name });

    const again = await svc.api('PATCH', `${base(a.org.id)}/${id}`, { token: a.owner.token, body: { name } });
    assert.equal(again.status, 200, again.text);
    await theEvent(svc, 'project.changed', id);
    const empty = await svc.api('PATCH', `${base(a.org.id)}/${id}`, { token: a.owner.token, body: {} });
    assert.deepEqual(empty.body, { id, name });
    await theEvent(svc, 'project.changed', id);
  });

  it('answers bad PATCH bodies with 400 naming each field, and changes nothing', async () => {
    const id = await project(a);
    const cases: Array<[unknown, string[]]> = [
      [{ name: '' }, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 7 }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: 'ok', orgId: b.org.id }, ['orgId']],
    ];
    for (const [body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('PATCH', `${base(a.org.id)}/${id}`, { token: a.owner.token, body }), JSON.stringify(body));
    }
  });

  it('removes a project without applications: 204, the row gone, project.removed', async () => {
    const name = unique('doomed');
    const id = await project(a, name);
    const res = await svc.api('DELETE', `${base(a.org.id)}/${id}`, { token: a.owner.token });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    assert.deepEqual(await svc.dataSource.query('SELECT id FROM projects WHERE id = ?', [id]), []);
    const event = await theEvent(svc, 'project.removed', id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { name });
    await refused(svc, 404, () => svc.api('GET', `${base(a.org.id)}/${id}`, { token: a.owner.token }), 'gone');
    await refused(svc, 404, () => svc.api('DELETE', `${base(a.org.id)}/${id}`, { token: a.owner.token }), 'twice');
  });

  it('refuses to remove a project that has applications: 409, nothing changed', async () => {
    const id = await project(a);
    const app = await svc.api('POST', `${base(a.org.id)}/${id}/apps/api`, { token: a.owner.token, body: { name: 'api', authMethod: 'client_secret_basic' } });
    assert.equal(app.status, 201, app.text);
    const res = await refused(svc, 409, () => svc.api('DELETE', `${base(a.org.id)}/${id}`, { token: a.owner.token }));
    assert.match(res.body.message, /application/);
  });

  it('answers 401 without a valid token on every route, and changes nothing', async () => {
    const id = await project(a);
    for (const token of INVALID_TOKENS) {
      for (const [method, path, body] of [
        ['GET', base(a.org.id)],
        ['GET', `${base(a.org.id)}/${id}`],
        ['PATCH', `${base(a.org.id)}/${id}`, { name: 'x' }],
        ['DELETE', `${base(a.org.id)}/${id}`],
      ] as const) {
        await refused(svc, 401, () => svc.api(method, path, { ...tokenOption(token), body }), `${method} ${path}`);
      }
    }
  });

  it('answers 403 to an ORG_USER_MANAGER and a member without roles, and changes nothing', async () => {
    const id = await project(a);
    for (const caller of [a.manager, a.member]) {
      await refused(svc, 403, () => svc.api('GET', base(a.org.id), { token: caller.token }));
      await refused(svc, 403, () => svc.api('GET', `${base(a.org.id)}/${id}`, { token: caller.token }));
      await refused(svc, 403, () => svc.api('PATCH', `${base(a.org.id)}/${id}`, { token: caller.token, body: { name: 'x' } }));
      await refused(svc, 403, () => svc.api('DELETE', `${base(a.org.id)}/${id}`, { token: caller.token }));
    }
  });

  it("keeps tenants apart: another organization's project is 404 under either path, and changes nothing", async () => {
    const ofB = await project(b);
    // A's owner on B's organization; A's owner naming B's project under A's organization; unknown ids.
    await refused(svc, 404, () => svc.api('GET', base(b.org.id), { token: a.owner.token }), 'list of B');
    await refused(svc, 404, () => svc.api('GET', `${base(b.org.id)}/${ofB}`, { token: a.owner.token }), 'B path');
    await refused(svc, 404, () => svc.api('GET', `${base(a.org.id)}/${ofB}`, { token: a.owner.token }), 'B project under A');
    await refused(svc, 404, () => svc.api('PATCH', `${base(a.org.id)}/${ofB}`, { token: a.owner.token, body: { name: 'stolen' } }), 'rename B under A');
    await refused(svc, 404, () => svc.api('DELETE', `${base(a.org.id)}/${ofB}`, { token: a.owner.token }), 'delete B under A');
    await refused(svc, 404, () => svc.api('GET', `${base(a.org.id)}/${randomUUID()}`, { token: a.owner.token }), 'unknown project');
    await refused(svc, 404, () => svc.api('GET', base(randomUUID()), { token: svc.adminToken }), 'admin, unknown org');
    // The IAM_OWNER sees B's project under B only.
    const res = await svc.api('GET', `${base(b.org.id)}/${ofB}`, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    await refused(svc, 404, () => svc.api('GET', `${base(a.org.id)}/${ofB}`, { token: svc.adminToken }), 'admin, wrong org');
  });
});
