import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createOrg, useService } from '../support/fixtures.js';
import { humanUser, importBody, importedIds, postImport, storedCounts, userErrors } from './import.helpers.js';

/** OIDC Core §2: a `sub` is never reassigned, so a removed user's id is never given to anyone again. */
describe('import refuses the ids of removed users', () => {
  const svc = useService();

  it('after a SCIM DELETE, an import of the same id into any organization is an error and stores nothing', async () => {
    const first = await createOrg(svc);
    const other = await createOrg(svc);
    const id = randomUUID();
    assert.deepEqual(importedIds(await postImport(svc, importBody([{ orgId: first.id, humanUsers: [humanUser(id)] }]))), [id]);
    const deleted = await svc.api('DELETE', `/scim/v2/${first.id}/Users/${id}`, { token: svc.adminToken });
    assert.equal(deleted.status, 204, deleted.text);

    const before = await storedCounts(svc, other.id);
    const again = await postImport(svc, importBody([{ orgId: other.id, humanUsers: [humanUser(id, 'someone-else')] }]));
    assert.deepEqual(importedIds(again), []);
    assert.match(userErrors(again).get(id) ?? '', /removed user and is never given again/);
    assert.deepEqual(await storedCounts(svc, other.id), before);
    assert.equal((await svc.api('GET', `/scim/v2/${first.id}/Users/${id}`, { token: svc.adminToken })).status, 404);
  });
});
