import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../support/conformance.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'check-import-cycles.mjs');

function check(directory?: string) {
  return spawnSync(process.execPath, [SCRIPT, ...(directory ? [directory] : [])], { cwd: REPO_ROOT, encoding: 'utf8' });
}

describe('scripts/check-import-cycles.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on src/', () => {
    const result = check();
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /no import cycles/);
  });

  it('fails on a cycle through a subdirectory and names its files; a type-only import makes none', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './sub/b.js';\nexport const a = 1 + b;\n");
    writeFileSync(join(dir, 'sub', 'b.ts'), "import { c } from './c.js';\nexport const b = c;\n");
    writeFileSync(join(dir, 'sub', 'c.ts'), "import { a } from '../a.js';\nexport const c = 2;\nexport const d = () => a;\n");
    writeFileSync(join(dir, 'typed.ts'), "import type { a } from './a.js';\nexport type A = typeof a;\n");
    writeFileSync(join(dir, 'typed-back.ts'), "import { x } from './typed-user.js';\nexport const y = x;\n");
    writeFileSync(join(dir, 'typed-user.ts'), "import type { y } from './typed-back.js';\nexport const x = 1;\nexport type Y = typeof y;\n");
    const result = check(dir);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /import cycle among 3 file\(s\)/);
    for (const file of ['a.ts', 'sub/b.ts', 'sub/c.ts']) assert.ok(result.stderr.includes(`  ${file} ->`), result.stderr);
    assert.ok(!result.stderr.includes('typed'), result.stderr);
  });
});
