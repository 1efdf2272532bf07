import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

/** The repository root (this file is compiled to dist/test/support/). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/**
 * The shared conformance material sits beside the repository in CI (`<repo>/../shared`). Missing, it is
 * a broken checkout, not a reason to skip: fail with the path that was looked for.
 */
export function conformancePath(...parts: string[]): string {
  const path = join(REPO_ROOT, '..', 'shared', 'conformance', ...parts);
  if (!existsSync(path)) throw new Error(`conformance material not found at ${path}; check out ../shared beside the repository`);
  return path;
}
