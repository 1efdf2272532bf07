import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_POLICY } from '../../src/common/auth/authenticated.decorator.js';
import type { AccessPolicy } from '../../src/common/auth/authenticated.decorator.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';

const SNAPSHOT = new URL('../../../test/access/route-policies.snapshot.json', import.meta.url);

interface Route {
  route: string;
  policy: string;
}

/** Every route of every controller, with the access policy it declares (or `NONE`). */
function collectRoutes(svc: TestService): Route[] {
  const routes: Route[] = [];
  for (const module of svc.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name as keyof object] as unknown;
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler);
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const policy: AccessPolicy | undefined =
          Reflect.getMetadata(ACCESS_POLICY, handler) ?? Reflect.getMetadata(ACCESS_POLICY, controller);
        routes.push({ route: `${method} /${[base, path].filter((p) => p && p !== '/').join('/')}`, policy: describePolicy(policy) });
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

function describePolicy(policy: AccessPolicy | undefined): string {
  if (!policy) return 'NONE';
  if (policy.public) return 'public';
  return policy.scope === 'org' ? `${policy.role} on :${policy.orgParam}` : `${policy.role} on instance`;
}

describe('access policies', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(() => svc?.close());

  it('every route declares a policy', () => {
    const routes = collectRoutes(svc);
    assert.ok(routes.length > 10, 'routes were found');
    assert.deepEqual(
      routes.filter((r) => r.policy === 'NONE').map((r) => r.route),
      [],
    );
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
