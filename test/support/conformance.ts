import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

/** The repository root (this file is compiled to dist/test/support/). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

function materialPath(parts: string[]): string {
  return join(REPO_ROOT, '..', 'shared', 'conformance', ...parts);
}

/**
 * The shared conformance material sits beside the repository in CI (`<repo>/../shared`). Missing
 * there, it is a broken checkout: fail with the path that was looked for.
 */
export function conformancePath(...parts: string[]): string {
  const path = materialPath(parts);
  if (!existsSync(path)) throw new Error(`conformance material not found at ${path}; check out ../shared beside the repository`);
  return path;
}

/**
 * The `skip` option of a test that reads the material: a newcomer who cloned only the project runs
 * the suite without it, so outside CI a missing folder skips (with a printed notice). With CI=true
 * nothing skips, and conformancePath fails the test instead.
 */
export function skipWithoutConformance(...parts: string[]): string | false {
  if (process.env.CI === 'true' || existsSync(materialPath(parts))) return false;
  const notice = `conformance material ${materialPath(parts)} is absent (set CI=true to require it)`;
  console.log(`# SKIP ${notice}`);
  return notice;
}
