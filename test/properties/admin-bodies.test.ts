import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { countRows, createCaller, createOrg, useService } from '../support/fixtures.js';

/**
 * Random JSON at every admin and management endpoint: the answer is never a 5xx, and a refused
 * request changes nothing (no row, no event).
 */
describe('property: random bodies at the admin and management API', () => {
  const svc = useService();
  let routes: Array<[method: string, path: string]>;

  before(async () => {
    const org = await createOrg(svc);
    const machine = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: 'p' } });
    const app = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/apps/api`, {
      token: svc.adminToken,
      body: { name: 'api', authMethod: 'private_key_jwt' },
    });
    const m = `/management/v1/orgs/${org.id}`;
    routes = [
      ['POST', '/admin/v1/orgs'],
      ['PUT', `/admin/v1/members/${machine.userId}`],
      ['PUT', '/admin/v1/features'],
      ['POST', '/admin/v1/events/_search'],
      ['POST', `${m}/projects`],
      ['POST', `${m}/projects/${project.body.id}/apps/oidc`],
      ['POST', `${m}/projects/${project.body.id}/apps/api`],
      ['POST', `${m}/projects/${project.body.id}/apps/${app.body.appId}/keys`],
      ['POST', `${m}/users/human`],
      ['POST', `${m}/users/machine`],
      ['POST', `${m}/users/${machine.userId}/secret`],
      ['POST', `${m}/users/${machine.userId}/keys`],
      ['POST', `${m}/users/${machine.userId}/pats`],
      ['PUT', `${m}/members/${machine.userId}`],
    ];
  });

  it('never answers 5xx, and every 4xx leaves the tables as they were', async () => {
    const tables = [
      'organizations',
      'users',
      'memberships',
      'projects',
      'applications',
      'public_keys',
      'machine_secrets',
      'personal_access_tokens',
      'features',
      'events',
    ];
    const snapshot = async () => Promise.all(tables.map((t) => countRows(svc, t)));
    const bodies = fc.oneof(
      fc.json().map((text) => ({ raw: text })),
      fc.object({ maxDepth: 3 }).map((value) => ({ raw: JSON.stringify(value) })),
      fc.string({ maxLength: 40 }).map((text) => ({ raw: text })),
      fc.record({ name: fc.anything(), userName: fc.anything(), roles: fc.anything(), limit: fc.anything() }).map((v) => ({ raw: JSON.stringify(v) })),
    );
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), bodies, async (routeIndex, body) => {
        const [method, path] = routes[routeIndex % routes.length];
        const before = await snapshot();
        const res = await svc.api(method, path, { token: svc.adminToken, rawBody: body.raw });
        tried++;
        assert.ok(res.status < 500, `${method} ${path} ${body.raw} → ${res.status} ${res.text}`);
        assert.equal(typeof res.body?.code === 'number' || res.status < 300, true, `${res.status} has the error shape: ${res.text}`);
        if (res.status >= 400) assert.deepEqual(await snapshot(), before, `${method} ${path} ${body.raw} → ${res.status} changed state`);
      }),
      { numRuns: 300, seed: Number(process.env.PROPERTY_SEED ?? 20261121) },
    );
    assert.equal(tried, 300);
  });
});
