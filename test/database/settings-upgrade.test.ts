import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { InstanceSettings1795780000000 } from '../../src/common/database/migrations/1795780000000-instance-settings.js';
import { MIGRATIONS } from '../../src/common/database/migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { readSettings } from '../../src/settings/settings.store.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Upgrading an instance that ran before the settings existed (docs/operations.md, "Settings"): it keeps the
 * lifetimes, minimum password length and lockout its instance row had, and its organizations keep offering
 * registration as they did (no login policy is written for them).
 */
describe('upgrade: the instance settings of a previous version', () => {
  let database: TestDatabase;
  let dataDir: string;
  let current: DataSource;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-settings-upgrade-'));
    database = await createTestDatabase();
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...(database.url ? { DATABASE_URL: database.url } : {}) });
    const previous = new DataSource({
      ...dataSourceOptions(config.database, ENTITIES),
      migrations: MIGRATIONS.filter((m) => m !== InstanceSettings1795780000000),
    });
    await previous.initialize();
    try {
      await previous.runMigrations({ transaction: 'each' });
      await previous.query(
        'INSERT INTO instance (id, default_language, lockout_max_attempts, password_min_length, access_token_lifetime, id_token_lifetime, refresh_token_idle_lifetime, refresh_token_absolute_lifetime, guard_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ['instance', 'en', 5, 10, 3600, 1800, 86_400, 7 * 86_400, 0, Date.now()],
      );
      await previous.query('INSERT INTO organizations (id, name, primary_domain, created_at, changed_at) VALUES (?, ?, ?, ?, ?)', [
        'org-before',
        'Before',
        'before.localhost',
        Date.now(),
        Date.now(),
      ]);
    } finally {
      await previous.destroy();
    }
    current = new DataSource({ ...dataSourceOptions(config.database, ENTITIES), migrations: MIGRATIONS });
    await current.initialize();
    await current.runMigrations({ transaction: 'each' });
  });
  after(async () => {
    await current?.destroy();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps the instance row's lifetimes, minimum length and lockout", async () => {
    const settings = await readSettings(current.manager);
    assert.deepEqual(settings.tokens, { accessTokenSeconds: 3600, idTokenSeconds: 1800, refreshIdleSeconds: 86_400, refreshAbsoluteSeconds: 7 * 86_400 });
    assert.equal(settings.passwordPolicy.minLength, 10);
    assert.deepEqual(settings.lockout, { maxPasswordFailures: 5, maxFactorFailures: 5, lockSeconds: 0 });
    assert.equal(settings.registration.defaultForNewOrganizations, false);
  });

  it('writes no login policy for an existing organization, so it keeps offering registration', async () => {
    assert.deepEqual(await current.query('SELECT org_id FROM login_policies WHERE org_id = ?', ['org-before']), []);
  });
});
