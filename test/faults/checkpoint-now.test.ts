import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { WalCheckpointer } from '../../src/common/database/wal-checkpointer.js';
import { createOrg, useService } from '../support/fixtures.js';

/**
 * A writer of many batches (the OIDC purge, src/oidc/adapter/oidc-purge.ts) rests between them until the
 * checkpointer's thread has checkpointed the WAL. When `checkpointNow` resolves, what was committed before it
 * is in the database file itself — the thread's own timer (every second) would leave it in the WAL a while.
 */
describe('faults: a checkpoint asked for is done when its promise resolves', () => {
  const svc = useService();
  const copies = mkdtempSync(join(tmpdir(), 'portcullis-checkpoint-now-'));
  after(() => rmSync(copies, { recursive: true, force: true }));

  it('a change committed just before is in the database file without its WAL', async (t) => {
    const checkpointer = svc.app.get(WalCheckpointer);
    const org = await createOrg(svc);
    await checkpointer.checkpointNow();
    if (svc.dataSource.options.type !== 'better-sqlite3') return t.skip('SQLite only: on MySQL/MariaDB it resolves at once, there is no WAL of ours');
    const copy = join(copies, 'main-file-only.sqlite');
    copyFileSync(join(svc.dataDir, 'portcullis.sqlite'), copy);
    const db = new Database(copy);
    try {
      const found = db.prepare('SELECT name FROM organizations WHERE id = ?').get(org.id) as { name: string } | undefined;
      assert.equal(found?.name, org.name);
    } finally {
      db.close();
    }
  });

  it('many asked for at once are each answered', async () => {
    const checkpointer = svc.app.get(WalCheckpointer);
    const answered = await Promise.all(Array.from({ length: 20 }, () => checkpointer.checkpointNow().then(() => true)));
    assert.equal(answered.filter(Boolean).length, 20);
  });
});
