import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../common/config/config.js';
import { openDataSource } from '../common/database/data-source.js';
import { SchemaNewerError, migrate, migrationState } from '../common/database/migrate.js';
import { ENTITIES } from '../entities.js';

export const MIGRATE_USAGE = `Usage: portcullis migrate [--check]

Applies the database migrations of this version, for operators who upgrade the schema as a step of
its own (the service also applies them at start-up). Reads the service's environment: DATABASE_URL,
or DATA_DIR for the default SQLite file.

  --check   apply nothing; list the pending migrations

Exit status: 0 up to date (or applied), 1 migrations pending (--check) or the database unreachable,
2 the database schema is newer than this version, or the configuration is invalid.`;

/** `portcullis migrate [--check]`. */
export async function runMigrate(args: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const { values } = parseArgs({ args, options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    out.write(`${MIGRATE_USAGE}\n`);
    return 0;
  }
  let database;
  try {
    database = loadConfig().database;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    err.write(`${error.message}\n`);
    return 2;
  }
  return values.check ? check(database, out, err) : apply(database, out, err);
}

async function check(database: Parameters<typeof openDataSource>[0], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const dataSource = await openDataSource(database, ENTITIES);
  try {
    const state = await migrationState(dataSource);
    if (state.unknown.length > 0) {
      err.write(`${new SchemaNewerError(state.unknown).message}\n`);
      return 2;
    }
    if (state.pending.length === 0) {
      out.write(`up to date: ${state.applied.length} migrations applied\n`);
      return 0;
    }
    out.write(`${state.pending.length} pending:\n${state.pending.map((name) => `  ${name}\n`).join('')}`);
    return 1;
  } finally {
    await dataSource.destroy();
  }
}

async function apply(database: Parameters<typeof openDataSource>[0], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  try {
    const applied = await migrate(database);
    out.write(applied.length === 0 ? 'up to date: nothing to apply\n' : applied.map((name) => `applied ${name}\n`).join(''));
    return 0;
  } catch (error) {
    if (!(error instanceof SchemaNewerError)) throw error;
    err.write(`${error.message}\n`);
    return 2;
  }
}
