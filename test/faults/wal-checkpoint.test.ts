import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { CHECKPOINT_INTERVAL_MS } from '../../src/common/database/wal-checkpointer.js';
import { createOrg } from '../support/fixtures.js';
import { eventually, processSetup, remoteService } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';

/**
 * With `synchronous = NORMAL` a commit reaches the database file (and is synced) at a WAL checkpoint.
 * The service checkpoints on a timer from a worker thread (src/common/database/wal-checkpointer.ts), so
 * a change made on a quiet instance is in the database file itself within about a second — SQLite's own
 * trigger (1,000 pages of WAL) would leave it in the WAL for as long as the instance stays quiet.
 */
describe('faults: a quiet SQLite instance checkpoints its WAL within seconds', () => {
  let setup: ProcessSetup;
  let copies: string;
  before(async () => {
    setup = await processSetup();
    copies = mkdtempSync(join(tmpdir(), 'portcullis-wal-copy-'));
  });
  after(async () => {
    await setup?.cleanup();
    rmSync(copies, { recursive: true, force: true });
  });

  /** The organization's name as a power loss would leave the database if the WAL's unsynced tail were gone: the main file only. */
  let attempt = 0;
  function nameInDatabaseFileAlone(orgId: string, what: string): Promise<string> {
    return eventually(
      what,
      async () => {
        const copy = join(copies, `copy-${attempt++}.sqlite`);
        copyFileSync(join(setup.dataDir, 'portcullis.sqlite'), copy);
        const db = new Database(copy);
        try {
          return (db.prepare('SELECT name FROM organizations WHERE id = ?').get(orgId) as { name: string } | undefined)?.name;
        } finally {
          db.close();
        }
      },
      CHECKPOINT_INTERVAL_MS * 5,
      CHECKPOINT_INTERVAL_MS / 4,
    );
  }

  it('an organization created through the API is in the database file, without its WAL, while the service runs', async (t) => {
    if (setup.env.DATABASE_URL) return t.skip('SQLite only: MySQL/MariaDB have no WAL of ours');
    const service = await setup.spawn();
    const org = await createOrg(remoteService(service.url, setup.adminToken()));
    assert.equal(await nameInDatabaseFileAlone(org.id, 'the new organization in the database file alone'), org.name);
    await service.stop();
  });

  it('the thread stops once the WAL is quiet, and the next change starts it again and reaches the database file', async (t) => {
    if (setup.env.DATABASE_URL) return t.skip('SQLite only: MySQL/MariaDB have no WAL of ours');
    const service = await setup.spawn({ SQLITE_CHECKPOINT_IDLE_MS: '1000', LOG_LEVEL: 'debug' });
    const api = remoteService(service.url, setup.adminToken());
    const stops = () => service.output().split('WAL checkpoint thread stopped').length - 1;
    const starts = () => service.output().split('WAL checkpoint thread started').length - 1;
    // Quiet means nothing written at all: an idle instance has no timer that writes (the webhook dispatcher's
    // heartbeat wrote every second; it now writes only while there are subscriptions).
    await eventually('the thread stopped on a quiet instance', async () => (stops() >= 1 ? true : undefined), 15_000, 100);
    const startsBefore = starts();
    const org = await createOrg(api);
    await eventually('the thread started again after the change', async () => (starts() > startsBefore ? true : undefined), CHECKPOINT_INTERVAL_MS * 5, 100);
    assert.equal(await nameInDatabaseFileAlone(org.id, 'the organization created after the stop in the database file alone'), org.name);
    assert.ok(!/WAL checkpoint (thread )?failed/.test(service.output()), 'no checkpoint failed');
  });
});
