import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, badRequest, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

describe('management API: projects', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const path = (orgId: string) => `/management/v1/orgs/${orgId}/projects`;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  it('creates a project for an ORG_OWNER: 201 {id}, its row, and project.added', async () => {
    const name = unique('Project');
    const res = await svc.api('POST', path(a.org.id), { token: a.owner.token, body: { name } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body), ['id']);
    assert.equal(typeof res.body.id, 'string');

    const project = await row(svc, 'SELECT org_id, name FROM projects WHERE id = ?', [res.body.id]);
    assert.deepEqual({ ...project }, { org_id: a.org.id, name });

    const event = await theEvent(svc, 'project.added', res.body.id);
    assert.equal(event.aggregate.type.type, 'project');
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { name });
  });

  it('lets an IAM_OWNER create a project in any organization (IAM_OWNER holds every organization role)', async () => {
    const res = await svc.api('POST', path(b.org.id), { token: svc.adminToken, body: { name: unique('by-admin') } });
    assert.equal(res.status, 201, res.text);
    const project = await row(svc, 'SELECT org_id FROM projects WHERE id = ?', [res.body.id]);
    assert.equal(project.org_id, b.org.id);
  });

  it('answers bad bodies with 400 naming each field, and changes nothing', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: 42 }, ['name']],
      [{ name: '' }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: ['a'] }, ['name']],
      [{ name: 'ok', orgId: b.org.id }, ['orgId']],
      [{ name: '', description: 'unknown' }, ['name', 'description']],
    ];
    for (const [body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('POST', path(a.org.id), { token: a.owner.token, body }), JSON.stringify(body));
    }
    const malformed = await refused(svc, 400, () => svc.api('POST', path(a.org.id), { token: a.owner.token, rawBody: '{"name":' }));
    assert.match(malformed.body.message, /malformed JSON/);
  });

  it('answers 401 without a valid token, and changes nothing', async () => {
    for (const token of INVALID_TOKENS) {
      const res = await refused(svc, 401, () => svc.api('POST', path(a.org.id), { ...tokenOption(token), body: { name: unique('p') } }));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
  });

  it('answers 403 to an ORG_USER_MANAGER and to a member without roles, and changes nothing', async () => {
    for (const caller of [a.manager, a.member]) {
      const res = await refused(svc, 403, () => svc.api('POST', path(a.org.id), { token: caller.token, body: { name: unique('p') } }));
      assert.match(res.body.message, /ORG_OWNER/);
    }
  });

  it("answers 404 for another organization's path and for unknown organizations, and changes nothing", async () => {
    await refused(svc, 404, () => svc.api('POST', path(b.org.id), { token: a.owner.token, body: { name: unique('p') } }), 'owner of A on B');
    await refused(svc, 404, () => svc.api('POST', path(b.org.id), { token: a.member.token, body: { name: unique('p') } }), 'member of A on B');
    // The organization is checked before the body: a caller learns nothing about B from a 400.
    await refused(svc, 404, () => svc.api('POST', path(b.org.id), { token: a.owner.token, body: { bogus: true } }), 'bad body on B');
    await refused(svc, 404, () => svc.api('POST', path(randomUUID()), { token: a.owner.token, body: { name: unique('p') } }), 'unknown org');
    await refused(svc, 404, () => svc.api('POST', path(randomUUID()), { token: svc.adminToken, body: { name: unique('p') } }), 'admin, unknown org');
  });
});
