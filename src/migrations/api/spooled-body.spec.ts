import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { removeLeftBodies } from './spooled-body.js';

describe('removeLeftBodies', () => {
  const own = mkdtempSync(join(tmpdir(), 'spool-sweep-'));
  after(() => rmSync(own, { recursive: true, force: true }));

  it('removes the bodies a stopped process left a day ago, and nothing else', async () => {
    const old = join(own, 'portcullis-body-old');
    const fresh = join(own, 'portcullis-body-fresh');
    const other = join(own, 'someone-else');
    for (const dir of [old, fresh, other]) mkdirSync(dir);
    const dayAndMore = new Date(Date.now() - 25 * 3600_000);
    utimesSync(old, dayAndMore, dayAndMore);
    utimesSync(other, dayAndMore, dayAndMore);
    assert.equal(await removeLeftBodies(own), 1);
    assert.equal(existsSync(old), false);
    assert.equal(existsSync(fresh), true, 'a body a migration may still be reading stays');
    assert.equal(existsSync(other), true);
  });
});
