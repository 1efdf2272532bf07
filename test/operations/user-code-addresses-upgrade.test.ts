import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { MIGRATIONS } from '../../src/common/database/migrations/index.js';
import { UserCodeAddresses1763800100000 } from '../../src/common/database/migrations/1763800100000-user-code-addresses.js';
import { ENTITIES } from '../../src/entities.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';

const HOUR = 3_600_000;

/**
 * The upgrade that binds codes to their address (docs/mail.md, "Codes"): a code of the version before keeps
 * working where its user's address has not changed since it was issued; one issued before a change ends, since the
 * address it went to is no longer known.
 */
describe('upgrade: mailed codes of the previous version', () => {
  let database: TestDatabase;
  let dataDir: string;
  let options: ReturnType<typeof dataSourceOptions>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-codes-upgrade-'));
    database = await createTestDatabase();
    const config = loadConfig({
      DATA_DIR: dataDir,
      MASTER_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'error',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    });
    options = dataSourceOptions(config.database, ENTITIES);
    const previous = new DataSource({ ...options, migrations: MIGRATIONS.filter((m) => m !== UserCodeAddresses1763800100000) });
    await previous.initialize();
    try {
      await previous.runMigrations({ transaction: 'each' });
      const now = Date.now();
      await previous.query('INSERT INTO organizations (id, name, primary_domain, created_at, changed_at) VALUES (?, ?, ?, ?, ?)', [
        'org',
        'org',
        'org.localhost',
        now,
        now,
      ]);
      for (const [id, email] of [
        ['kept', 'kept@example.com'],
        ['moved', 'moved@example.com'],
        ['mailless', null],
      ]) {
        await previous.query(
          `INSERT INTO users (id, org_id, type, user_name, user_name_lower, state, email, email_lower, version, created_at, changed_at) VALUES (?, 'org', 'human', ?, ?, 'active', ?, ?, 1, ?, ?)`,
          [id, id, id, email, email?.toLowerCase() ?? null, now, now],
        );
        await previous.query('INSERT INTO user_codes (id, user_id, purpose, secret_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
          `code-${id}`,
          id,
          'password_reset',
          'x'.repeat(64),
          now - HOUR / 2,
          now + HOUR / 2,
        ]);
      }
      // The address of `moved` changed after its code was mailed; `kept` changed only before its code.
      const event = (id: string, userId: string, at: number) =>
        previous.query(
          `INSERT INTO events (id, type, aggregate_type, aggregate_id, resource_owner, payload, created_at) VALUES (?, 'user.human.email.changed', 'user', ?, 'org', '{}', ?)`,
          [id, userId, at],
        );
      await event('e1', 'kept', now - HOUR);
      await event('e2', 'moved', now - HOUR / 4);
    } finally {
      await previous.destroy();
    }
  });
  after(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a code with its user’s unchanged address, ends one issued before a change or for a user without an address; down drops the column', async () => {
    const current = new DataSource({ ...options, migrations: MIGRATIONS });
    await current.initialize();
    try {
      await current.runMigrations({ transaction: 'each' });
      const rows: { id: string; address: string }[] = await current.query('SELECT id, address FROM user_codes ORDER BY id');
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [{ id: 'code-kept', address: 'kept@example.com' }],
      );
      await assert.rejects(
        current.query(`INSERT INTO user_codes (id, user_id, purpose, secret_hash, created_at, expires_at) VALUES ('c2', 'kept', 'invitation', ?, 0, 1)`, [
          'x'.repeat(64),
        ]),
        'an address is required',
      );

      await current.undoLastMigration({ transaction: 'each' });
      await assert.rejects(current.query('SELECT address FROM user_codes'), 'the column is gone');
      assert.deepEqual(
        (await current.query('SELECT id FROM user_codes')).map((r: { id: string }) => r.id),
        ['code-kept'],
        'the code stays',
      );
    } finally {
      await current.destroy();
    }
  });
});
