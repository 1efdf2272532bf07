/**
 * Test support (not used at run time): loads the scimmy vectors copied to
 * `test/fixtures/scimmy/`. Specs run from a compiled output directory (`dist/…` or a helper
 * build folder), so the repository root is found by walking up to the nearest `package.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function findRepoRoot(from: string | URL = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
}

function loadScimmyFixture(name: 'filter.json' | 'patchop.json'): unknown {
  const file = join(findRepoRoot(), 'test', 'fixtures', 'scimmy', name);
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

interface ScimmyFilterVectors {
  readonly parse: Record<string, readonly { readonly source: string; readonly target: readonly unknown[] }[]>;
  readonly expression: Record<string, readonly { readonly source: readonly unknown[]; readonly target: string }[]>;
  readonly match: {
    readonly source: readonly Record<string, unknown>[];
    readonly targets: Record<string, readonly { readonly expression: unknown; readonly expected: readonly number[] }[]>;
  };
}

export interface ScimmyPatchVector {
  readonly source: Record<string, unknown>;
  readonly target: Record<string, unknown>;
  readonly ops: readonly { readonly op: string; readonly path?: string; readonly value?: unknown }[];
}

interface ScimmyPatchVectors {
  readonly inbound: Record<string, readonly ScimmyPatchVector[]>;
}

export function loadScimmyFilterVectors(): ScimmyFilterVectors {
  const data = loadScimmyFixture('filter.json');
  if (typeof data !== 'object' || data === null || !('parse' in data) || !('match' in data) || !('expression' in data)) {
    throw new Error('filter.json does not have the expected parse/expression/match sections');
  }
  return data as ScimmyFilterVectors;
}

export function loadScimmyPatchVectors(): ScimmyPatchVectors {
  const data = loadScimmyFixture('patchop.json');
  if (typeof data !== 'object' || data === null || !('inbound' in data)) {
    throw new Error('patchop.json does not have the expected inbound section');
  }
  return data as ScimmyPatchVectors;
}
