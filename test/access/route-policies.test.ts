import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { AccessPolicy } from '../../src/common/auth/authenticated.decorator.js';
import { declaredRoutes, oidcRoutes } from '../support/routes.js';
import type { TestService } from '../support/service.js';
import { useService } from '../support/fixtures.js';

const SNAPSHOT = new URL('../../../test/access/route-policies.snapshot.json', import.meta.url);

interface Route {
  route: string;
  policy: string;
}

/**
 * Every route of every controller, with the access policy it declares (or `NONE`), and every route
 * oidc-provider and the login UI answer, with the check they apply.
 */
function collectRoutes(svc: TestService): Route[] {
  return [
    ...declaredRoutes(svc).map(({ method, path, policy }) => ({ route: `${method} ${path}`, policy: describePolicy(policy) })),
    ...oidcRoutes(svc).map(({ method, path, policy }) => ({ route: `${method} ${path}`, policy })),
  ].sort((a, b) => a.route.localeCompare(b.route));
}

function describePolicy(policy: AccessPolicy | undefined): string {
  if (!policy) return 'NONE';
  if (policy.public) return 'public';
  if (policy.scope === 'caller') return 'any caller (about itself)';
  return policy.scope === 'org' ? `${policy.role} on :${policy.orgParam}` : `${policy.role} on instance`;
}

describe('access policies', () => {
  const svc = useService();

  it('every route declares a policy', () => {
    const routes = collectRoutes(svc);
    assert.ok(routes.length > 10, 'routes were found');
    assert.deepEqual(
      routes.filter((r) => r.policy === 'NONE').map((r) => r.route),
      [],
    );
  });

  // The provider's list is written out in test/support/routes.ts: a path it does not answer is a stale entry.
  it('oidc-provider answers every listed provider route', async () => {
    const unanswered: string[] = [];
    for (const { method, path } of oidcRoutes(svc)) {
      const res = await fetch(new URL(path.replace(':uid', 'unknown-interaction'), svc.url), { method, redirect: 'manual' });
      if (res.status === 404 && /unrecognized route/.test(await res.text())) unanswered.push(`${method} ${path}`);
    }
    assert.deepEqual(unanswered, []);
  });

  // A permission change shows up as a diff of this snapshot, to be reviewed as such.
  // After an intended change: UPDATE_SNAPSHOTS=1 npm test -- route-policies
  it('policies match the reviewed snapshot', () => {
    const actual = Object.fromEntries(collectRoutes(svc).map((r) => [r.route, r.policy]));
    if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, JSON.stringify(actual, null, 2) + '\n');
    assert.ok(existsSync(SNAPSHOT), 'no snapshot yet: run with UPDATE_SNAPSHOTS=1 and review it');
    assert.deepEqual(actual, JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });
});

describe('where a bearer token is read (RFC 6750 §2)', () => {
  const svc = useService();

  // Passport's defaults also took the token from `?access_token=` and from a JSON body.
  it('only the Authorization header carries it: the same token in the query or in the body is no token (401)', async () => {
    const me = '/auth/v1/users/me';
    assert.equal((await svc.api('GET', me, { token: svc.adminToken })).status, 200, 'the header works');
    const inQuery = await svc.api('GET', `${me}?access_token=${encodeURIComponent(svc.adminToken)}`);
    assert.equal(inQuery.status, 401, inQuery.text);
    const orgs = await svc.api('POST', '/admin/v1/orgs', { body: { name: 'by-body-token', access_token: svc.adminToken } });
    assert.equal(orgs.status, 401, orgs.text);
    const form = await fetch(new URL('/admin/v1/orgs', svc.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: svc.adminToken, name: 'by-form-token' }),
    });
    assert.equal(form.status, 401);
    const listed = await svc.api('GET', '/admin/v1/orgs?limit=1000', { token: svc.adminToken });
    assert.ok(!JSON.stringify(listed.body).includes('by-body-token') && !JSON.stringify(listed.body).includes('by-form-token'), 'nothing was created');
  });
});
