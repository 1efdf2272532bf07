import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_POLICY } from '../../src/common/auth/authenticated.decorator.js';
import type { AccessPolicy } from '../../src/common/auth/authenticated.decorator.js';
import type { TestService } from './service.js';

export interface DeclaredRoute {
  method: string;
  /** Express path with `:params`, e.g. `/management/v1/orgs/:orgId/projects`. */
  path: string;
  policy: AccessPolicy | undefined;
}

/** Every route of every controller with its access policy, read the way the guard reads it. */
export function declaredRoutes(svc: TestService): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
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
        routes.push({
          method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod],
          path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`,
          policy: Reflect.getMetadata(ACCESS_POLICY, handler) ?? Reflect.getMetadata(ACCESS_POLICY, controller),
        });
      }
    }
  }
  return routes.sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}

/** Fills `:params` from the given values; throws on a parameter the caller has no value for. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for :${name} in ${path}: add one to the test`);
    return encodeURIComponent(values[name]);
  });
}
