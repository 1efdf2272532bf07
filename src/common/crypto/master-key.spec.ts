import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const moduleUrl = new URL('./master-key.js', import.meta.url).href;

describe('master key file', () => {
  it('processes starting together on an empty data directory all read the one key the first of them wrote', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-master-key-'));
    try {
      const script = `import(${JSON.stringify(moduleUrl)}).then((m) => process.stdout.write(m.loadMasterKey({ dataDir: ${JSON.stringify(dataDir)} }).toString('hex')))`;
      const keys = await Promise.all(Array.from({ length: 8 }, () => run(process.execPath, ['-e', script]).then((out) => out.stdout)));
      assert.equal(new Set(keys).size, 1);
      assert.equal(keys[0].length, 64);
      assert.deepEqual(readdirSync(dataDir), ['master.key']);
      assert.equal(statSync(join(dataDir, 'master.key')).mode & 0o777, 0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
