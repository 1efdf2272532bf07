import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import type { DatabaseConfig } from '../../src/common/config/config.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { MIGRATIONS } from '../../src/common/database/migrations/index.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { ENTITIES } from '../../src/entities.js';

/**
 * Every migration's `down` undoes exactly its `up`: the schema (tables, columns with their types,
 * nullability and defaults, indexes) after up(1..n) and down(n) equals the schema after up(1..n-1),
 * down to an empty database, and everything applies again afterwards.
 */
describe('operations: every migration can be reverted', () => {
  let dataDir: string;
  let testDb: TestDatabase;
  let database: DatabaseConfig;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-down-'));
    testDb = await createTestDatabase();
    database = loadConfig({ DATA_DIR: dataDir, ...(testDb.url ? { DATABASE_URL: testDb.url } : {}) }).database;
  });
  after(async () => {
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function withMigrations<T>(count: number, work: (db: DataSource) => Promise<T>): Promise<T> {
    const db = await new DataSource({ ...dataSourceOptions(database, ENTITIES), migrations: MIGRATIONS.slice(0, count) }).initialize();
    try {
      return await work(db);
    } finally {
      await db.destroy();
    }
  }

  it(`each of the ${MIGRATIONS.length} migrations reverts to the schema before it, and all apply again`, async () => {
    const after: string[] = [await withMigrations(0, schemaOf)];
    for (let n = 1; n <= MIGRATIONS.length; n++) {
      after.push(
        await withMigrations(n, async (db) => {
          assert.equal((await db.runMigrations({ transaction: 'each' })).length, 1);
          return schemaOf(db);
        }),
      );
    }
    await withMigrations(MIGRATIONS.length, async (db) => {
      for (let n = MIGRATIONS.length; n >= 1; n--) {
        await db.undoLastMigration({ transaction: 'each' });
        assert.equal(await schemaOf(db), after[n - 1], `down of ${MIGRATIONS[n - 1].name} restores the schema before its up`);
      }
      assert.equal((await db.runMigrations({ transaction: 'each' })).length, MIGRATIONS.length);
      assert.equal(await schemaOf(db), after[MIGRATIONS.length]);
    });
  });
});

/** Tables, columns and indexes, as text (the migrations table itself left out). */
async function schemaOf(db: DataSource): Promise<string> {
  if (db.options.type === 'mysql') {
    const columns = await db.query(
      `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, COLLATION_NAME FROM information_schema.COLUMNS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'migrations' ORDER BY TABLE_NAME, COLUMN_NAME`,
    );
    const indexes = await db.query(
      `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'migrations' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    );
    return JSON.stringify({ columns, indexes }, null, 1);
  }
  const tables: { name: string }[] = await db.query(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'migrations' ORDER BY name`,
  );
  const schema: Record<string, unknown> = {};
  for (const { name } of tables) {
    const indexes: { name: string; unique: number; partial: number }[] = await db.query(
      `SELECT name, "unique", partial FROM pragma_index_list('${name}') ORDER BY name`,
    );
    schema[name] = {
      columns: await db.query(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('${name}') ORDER BY name`),
      indexes: await Promise.all(
        indexes.map(async (index) => ({ ...index, columns: await db.query(`SELECT name FROM pragma_index_info('${index.name}') ORDER BY seqno`) })),
      ),
    };
  }
  return JSON.stringify(schema, null, 1);
}
