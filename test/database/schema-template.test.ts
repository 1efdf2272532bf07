import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import type { DatabaseConfig } from '../../src/common/config/config.js';
import { openDataSource } from '../../src/common/database/data-source.js';
import { migrate } from '../../src/common/database/migrate.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { layDownSchema } from '../support/schema-template.js';

/**
 * The in-process services of the suite start on a template of the migrated schema (test/support/schema-template.ts).
 * A database laid down from it must be the one the migrations make: every table, column, index, key and
 * auto-increment counter, and every row the migrations wrote.
 */
describe('schema template: the same database the migrations make', () => {
  const made: { db: TestDatabase; dir: string }[] = [];
  let migrated: DatabaseConfig;
  let laid: DatabaseConfig;
  before(async () => {
    const fresh = async () => {
      const entry = { db: await createTestDatabase(), dir: mkdtempSync(join(tmpdir(), 'portcullis-schema-test-')) };
      made.push(entry);
      return loadConfig({ DATA_DIR: entry.dir, ...(entry.db.url ? { DATABASE_URL: entry.db.url } : {}) }).database;
    };
    migrated = await fresh();
    await migrate(migrated);
    laid = await fresh();
    await layDownSchema(laid);
  });
  after(async () => {
    for (const { db, dir } of made) {
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lays down every table with its definition and rows, and migrate() then finds nothing to apply', async () => {
    const expected = await describeDatabase(migrated);
    assert.ok(Object.keys(expected).length > 40, 'the migrated schema has its tables');
    assert.deepEqual(await describeDatabase(laid), expected);
    assert.deepEqual(await migrate(laid), [], 'no migration left to apply on the laid-down schema');
  });

  it('leaves a database that already has tables alone', async () => {
    const before = await describeDatabase(laid);
    await layDownSchema(laid);
    assert.deepEqual(await describeDatabase(laid), before);
  });
});

/** Each table's definition and rows, by name. */
async function describeDatabase(database: DatabaseConfig): Promise<Record<string, { definition: string; rows: unknown[] }>> {
  const dataSource: DataSource = await openDataSource(database, []);
  try {
    const tables: { name: string; definition: string }[] =
      database.type === 'sqlite'
        ? await dataSource.query("SELECT name, sql AS definition FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        : await Promise.all(
            (await dataSource.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name')).map(
              async ({ name }: { name: string }) => ({ name, definition: (await dataSource.query(`SHOW CREATE TABLE \`${name}\``))[0]['Create Table'] }),
            ),
          );
    const out: Record<string, { definition: string; rows: unknown[] }> = {};
    for (const { name, definition } of tables) {
      const isTable = database.type === 'mysql' || /^CREATE TABLE/i.test(definition ?? '');
      out[name] = { definition: definition ?? '', rows: isTable ? await dataSource.query(`SELECT * FROM ${dataSource.driver.escape(name)}`) : [] };
    }
    return out;
  } finally {
    await dataSource.destroy();
  }
}
