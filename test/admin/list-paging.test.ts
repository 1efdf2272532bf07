import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createOrg, useService } from '../support/fixtures.js';
import { declaredRoutes } from '../support/routes.js';

/** Read routes of the admin and management APIs that answer one resource or setting, not a list. */
const NOT_LISTS = new Set([
  'GET /admin/v1/features',
  'GET /admin/v1/settings',
  'GET /admin/v1/branding',
  'GET /admin/v1/branding/text-keys',
  'GET /management/v1/orgs/:orgId/branding',
  'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding',
  'GET /admin/v1/directory-hosts',
  'GET /management/v1/orgs/:orgId/login-policy',
  'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId/status',
  'GET /management/v1/orgs/:orgId/idps/:idpId/signals',
]);

const BAD_PAGES: [query: string, field: string][] = [
  ['limit=-1', 'limit'],
  ['limit=0', 'limit'],
  ['limit=1001', 'limit'],
  ['limit=abc', 'limit'],
  ['offset=-1', 'offset'],
  ['offset=abc', 'offset'],
];

/**
 * Every list of the admin and management APIs takes `limit` (1–1000) and `offset` (≥ 0) and answers 400 naming the
 * field otherwise (docs/product-rules.md, "Changing and removing resources"). The routes are read from the
 * controllers, so a new list is walked without being added here.
 */
describe('paging of every admin and management list', () => {
  const svc = useService();
  let orgId: string;
  before(async () => {
    orgId = (await createOrg(svc)).id;
    await createOrg(svc);
  });

  const listRoutes = () =>
    declaredRoutes(svc)
      .filter(({ method, path }) => method === 'GET' && /^\/(admin|management)\/v1\//.test(path))
      .filter(({ method, path }) => !NOT_LISTS.has(`${method} ${path}`) && !/\/:\w+$/.test(path))
      .map(({ path }) => path.replace(':orgId', orgId).replace(/:\w+/g, () => randomUUID()));

  it('refuses a limit outside 1..1000 or a negative offset with 400 naming the field', async () => {
    const routes = listRoutes();
    assert.ok(routes.length >= 20, `the lists were found: ${routes.length}`);
    const accepted: string[] = [];
    for (const path of routes) {
      for (const [query, field] of BAD_PAGES) {
        const res = await svc.api('GET', `${path}?${query}`, { token: svc.adminToken });
        const named = res.status === 400 && (res.body.details ?? []).some((d: { field?: string }) => d.field === field);
        if (!named) accepted.push(`${path}?${query} → ${res.status} ${res.text.slice(0, 120)}`);
      }
      // A page inside the bounds is accepted: the parent may be unknown (404), but paging is not refused.
      const good = await svc.api('GET', `${path}?limit=1000&offset=0`, { token: svc.adminToken });
      if (good.status === 400) accepted.push(`${path}?limit=1000&offset=0 refused: ${good.text.slice(0, 120)}`);
    }
    assert.deepEqual(accepted, []);
  });

  it('applies the page: one organization at a time, with the total of all', async () => {
    const all = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.equal(all.status, 200, all.text);
    assert.ok(all.body.orgs.length >= 3);
    assert.equal(all.body.total, all.body.orgs.length);
    const seen: string[] = [];
    for (let offset = 0; offset < all.body.total; offset++) {
      const page = await svc.api('GET', `/admin/v1/orgs?limit=1&offset=${offset}`, { token: svc.adminToken });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.orgs.length, 1);
      assert.equal(page.body.total, all.body.total);
      seen.push(page.body.orgs[0].id);
    }
    assert.deepEqual(
      seen,
      all.body.orgs.map((o: { id: string }) => o.id),
      'the pages walk the list in its order',
    );
    const past = await svc.api('GET', `/admin/v1/orgs?offset=${all.body.total}`, { token: svc.adminToken });
    assert.deepEqual([past.body.orgs, past.body.total], [[], all.body.total]);
  });
});
