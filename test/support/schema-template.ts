import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { loadConfig } from '../../src/common/config/config.js';
import type { DatabaseConfig } from '../../src/common/config/config.js';
import { migrate } from '../../src/common/database/migrate.js';

/**
 * The schema every in-process service of a test process starts on, made once per process by running every
 * migration for real, then laid down for each further service in one step (docs/testing.md, "Services start on a
 * migrated template"). Running the 50-odd migrations cost about 0.3 s of CPU per service on SQLite and 0.9 s on
 * MariaDB (a third in the test process, the rest in the server rebuilding tables), some 400 times a pass; a copy
 * of the file, or the tables' final `CREATE TABLE` statements and their rows, costs a tenth of that. The service's
 * own start-up still runs `migrate()`, which finds nothing left to apply: a migration missing from the template
 * would be applied there, not skipped. Upgrade tests, which need an empty or an old schema, create their
 * databases with createTestDatabase and never come here; TEST_SCHEMA_TEMPLATE=0 turns the template off.
 */
export async function layDownSchema(database: DatabaseConfig): Promise<void> {
  if (process.env.TEST_SCHEMA_TEMPLATE === '0') return;
  if (database.type === 'sqlite') await laySqlite(database);
  else await layMysql(new URL(database.url));
}

let sqliteTemplate: Promise<string> | undefined;

async function laySqlite(database: Extract<DatabaseConfig, { type: 'sqlite' }>): Promise<void> {
  const { path } = database;
  // A database that is already there belongs to another service of the same instance.
  if (path === ':memory:' || existsSync(path)) return;
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-schema-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'template.db');
    await migrate({ ...database, path: file });
    return file;
  })();
  const template = await sqliteTemplate;
  copyFileSync(template, path);
  // Closing the last connection checkpoints the write-ahead log into the file; a log left behind goes with it.
  for (const suffix of ['-wal', '-shm']) if (existsSync(template + suffix)) copyFileSync(template + suffix, path + suffix);
}

interface MysqlTemplate {
  tables: string[];
  rows: { table: string; columns: string[]; values: unknown[][] }[];
}

let mysqlTemplate: Promise<MysqlTemplate> | undefined;

async function layMysql(url: URL): Promise<void> {
  const name = decodeURIComponent(url.pathname.slice(1));
  const conn = await connect(url, name);
  try {
    const [existing] = await conn.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ?', [name]);
    if (Number(existing[0].n) > 0) return;
    mysqlTemplate ??= captureMysql(url);
    const template = await mysqlTemplate;
    await conn.query(`SET FOREIGN_KEY_CHECKS = 0; ${template.tables.join(';\n')}; SET FOREIGN_KEY_CHECKS = 1`);
    for (const { table, columns, values } of template.rows) {
      await conn.query(`INSERT INTO ${conn.escapeId(table)} (${columns.map((c) => conn.escapeId(c)).join(', ')}) VALUES ?`, [values]);
    }
  } finally {
    await conn.end();
  }
}

/** Migrates a database of its own on the same server, reads back what the migrations made, and drops it. */
async function captureMysql(url: URL): Promise<MysqlTemplate> {
  const name = `${decodeURIComponent(url.pathname.slice(1))}_template`;
  const admin = await connect(url);
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    const templateUrl = new URL(url);
    templateUrl.pathname = `/${name}`;
    await migrate(loadConfig({ DATABASE_URL: templateUrl.toString() }).database);
    const [listed] = await admin.query<mysql.RowDataPacket[]>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
      [name],
    );
    // Only tables are copied: a migration that adds a view, a trigger or a routine must teach this file to copy it.
    const [others] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT (SELECT COUNT(*) FROM information_schema.views WHERE table_schema = ?) + (SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = ?)
        + (SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = ?) AS n`,
      [name, name, name],
    );
    if (Number(others[0].n) > 0) throw new Error(`the migrated schema has views, triggers or routines, which test/support/schema-template.ts does not copy`);
    const template: MysqlTemplate = { tables: [], rows: [] };
    for (const { name: table } of listed) {
      const [[created]] = await admin.query<mysql.RowDataPacket[]>(`SHOW CREATE TABLE ${admin.escapeId(name)}.${admin.escapeId(table)}`);
      template.tables.push(created['Create Table']);
      const [rows, fields] = await admin.query<mysql.RowDataPacket[]>(`SELECT * FROM ${admin.escapeId(name)}.${admin.escapeId(table)}`);
      if (rows.length === 0) continue;
      const columns = fields.map((f) => f.name);
      template.rows.push({ table, columns, values: rows.map((row) => columns.map((c) => row[c])) });
    }
    return template;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeId(name)}`);
    await admin.end();
  }
}

function connect(url: URL, database?: string) {
  return mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    database,
    multipleStatements: true,
    // Rows go back as they came out: dates and big numbers as the server wrote them.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}
