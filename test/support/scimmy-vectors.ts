/**
 * The only loader of the scimmy vectors copied to `test/fixtures/scimmy/` (see its README.md). Unit
 * specs run from the compiled output (`dist/src/…`) and suites from `dist/test/…`, so the repository
 * root is found by walking up to the nearest `package.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(from: string | URL = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
}

type VectorFile = 'filter.json' | 'patchop.json' | 'bulkrequest.json' | 'listresponse.json';

/** One vector file, checked to have the section its tests read. */
function load<T>(name: VectorFile, section: string): T {
  const data = JSON.parse(readFileSync(join(findRepoRoot(), 'test', 'fixtures', 'scimmy', name), 'utf8')) as unknown;
  if (typeof data !== 'object' || data === null || !(section in data)) throw new Error(`${name} has no ${section} section`);
  return data as T;
}

export interface ScimmyFilterVectors {
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

export interface ScimmyBulkVector {
  source: { failOnErrors?: number; Operations: unknown[] };
  target: string[];
}

export function loadScimmyFilterVectors(): ScimmyFilterVectors {
  const data = load<ScimmyFilterVectors>('filter.json', 'parse');
  if (!('match' in data) || !('expression' in data)) throw new Error('filter.json does not have the expected parse/expression/match sections');
  return data;
}

export function loadScimmyPatchVectors(): Record<string, readonly ScimmyPatchVector[]> {
  return load<{ inbound: Record<string, readonly ScimmyPatchVector[]> }>('patchop.json', 'inbound').inbound;
}

export function loadScimmyBulkVectors(): { failOnErrors: ScimmyBulkVector[]; bulkId: Record<string, ScimmyBulkVector[]> } {
  return load<{ inbound: { failOnErrors: ScimmyBulkVector[]; bulkId: Record<string, ScimmyBulkVector[]> } }>('bulkrequest.json', 'inbound').inbound;
}

export interface ScimmyListVectors {
  source: { id: number; userName: string; emails?: { value: string; primary?: boolean }[] }[];
  targets: {
    sortBy: { sortBy: string; sortOrder?: string; expected: number[] }[];
    startIndex: { startIndex: number; itemsPerPage?: number; sourceRange?: unknown; expected: number[] }[];
  };
}

/** The ListResponse vectors' outbound section: sorting and paging windows. */
export function loadScimmyListVectors(): ScimmyListVectors {
  return load<{ outbound: ScimmyListVectors }>('listresponse.json', 'outbound').outbound;
}
