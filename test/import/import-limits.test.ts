import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRows, createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, importedIds, postImport, storedCounts, userErrors } from './import.helpers.js';

/** The import's `timeout` and its body limit (docs/product-rules.md, "Import and event search"). */
describe('POST /admin/v1/import limits', () => {
  // A general limit far below the import's: the import route must use its own.
  const svc = useService({ BODY_LIMIT_BYTES: '20000', IMPORT_BODY_LIMIT_BYTES: '2000000' });

  it('stops at a user boundary when the timeout runs out, answers the successes plus a timeout entry; a re-run completes', async () => {
    const orgId = unique('timeout');
    const users = Array.from({ length: 2500 }, () => humanUser(unique('u')));
    const body = (timeout?: string) => importBody([{ orgId, org: { name: orgId }, humanUsers: users }], timeout);

    const partial = await postImport(svc, body('1ms'));
    const imported = importedIds(partial, orgId);
    const timeouts = partial.errors.filter((e) => e.type === 'timeout');
    assert.equal(timeouts.length, 1, JSON.stringify(partial.errors));
    assert.ok(imported.length > 0 && imported.length < users.length, `${imported.length} of ${users.length} imported before the timeout`);
    assert.match(timeouts[0].message, new RegExp(`timeout of 1ms after ${imported.length} users; ${users.length - imported.length} users were not imported`));
    assert.deepEqual(
      imported,
      users.slice(0, imported.length).map((u) => u.userId),
      'users are taken in order',
    );
    assert.deepEqual(await storedCounts(svc, orgId), { users: imported.length, events: imported.length });

    const rest = await postImport(svc, body());
    assert.deepEqual(
      importedIds(rest, orgId),
      users.slice(imported.length).map((u) => u.userId),
    );
    assert.deepEqual([...userErrors(rest).keys()], imported);
    assert.deepEqual(await storedCounts(svc, orgId), { users: users.length, events: users.length });
  });

  it('accepts an import body far above the general body limit', async () => {
    const orgId = unique('big');
    const users = Array.from({ length: 300 }, () => humanUser(unique('u')));
    const body = importBody([{ orgId, humanUsers: users }]);
    assert.ok(JSON.stringify(body).length > 20000);
    assert.equal(importedIds(await postImport(svc, body)).length, 300);
  });

  it('answers 413 naming the limit past IMPORT_BODY_LIMIT_BYTES, and writes nothing', async () => {
    const before = await countRows(svc, 'users');
    const users = Array.from({ length: 9000 }, () => humanUser(unique('u')));
    const res = await svc.api('POST', '/admin/v1/import', { token: svc.adminToken, body: importBody([{ orgId: unique('o'), humanUsers: users }]) });
    assert.equal(res.status, 413);
    assert.equal(res.body.message, 'request body exceeds the limit of 2000000 bytes');
    assert.equal(await countRows(svc, 'users'), before);
  });

  it('reads past the general limit only for an IAM_OWNER: anonymous, invalid and lesser tokens get 413 at the general limit, and nothing is written', async () => {
    // An anonymous 200 MB body once ran the process out of memory before the guard refused it.
    const org = await createOrg(svc);
    const orgOwner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    const users = Array.from({ length: 300 }, () => humanUser(unique('u')));
    const body = importBody([{ orgId: unique('o'), humanUsers: users }]);
    const before = await countRows(svc, 'users');
    for (const token of [undefined, 'not-a-token', orgOwner.token]) {
      const res = await svc.api('POST', '/admin/v1/import', { token, body });
      assert.equal(res.status, 413, `${token ?? 'no token'}: ${res.text}`);
      assert.equal(res.body.message, 'request body exceeds the limit of 20000 bytes');
    }
    // The token counts only in the Authorization header (RFC 6750 §2.1), not in the query.
    const inQuery = await svc.api('POST', `/admin/v1/import?access_token=${encodeURIComponent(svc.adminToken)}`, { body });
    assert.equal(inQuery.status, 413, inQuery.text);
    assert.equal(await countRows(svc, 'users'), before);
  });

  it('answers small import bodies of callers who are not IAM_OWNER as every route does: 401 without a token, 403 for a lesser role', async () => {
    const org = await createOrg(svc);
    const orgOwner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    const body = importBody([{ orgId: unique('o'), humanUsers: [humanUser(unique('u'))] }]);
    assert.equal((await svc.api('POST', '/admin/v1/import', { body })).status, 401);
    assert.equal((await svc.api('POST', '/admin/v1/import', { token: 'not-a-token', body })).status, 401);
    assert.equal((await svc.api('POST', '/admin/v1/import', { token: orgOwner.token, body })).status, 403);
  });

  it('keeps the general limit on other routes', async () => {
    const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: 'x'.repeat(30000) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.message, 'request body exceeds the limit of 20000 bytes');
  });
});
