import { QueryFailedError } from 'typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** The part of a better-sqlite3 connection used here. */
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
}

interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number };
}

/**
 * Plain parameterised statements for the hot paths (token endpoint, introspection, userinfo). On
 * SQLite they call better-sqlite3's prepared statements directly: TypeORM's query runner adds a
 * logger call, broadcaster events and four promises per statement, which cost more than SQLite's own
 * work for a one-row look-up. On MySQL/MariaDB they go through TypeORM's pool as before. Values are
 * always bound, never spliced into the text; errors are TypeORM's QueryFailedError either way.
 */
export interface Statements {
  rows<T>(sql: string, parameters: unknown[]): Promise<T[]>;
}

const cache = new WeakMap<DataSource, Statements>();

/** One instance per data source, so prepared statements are shared by every caller. */
export function statementsOf(dataSource: DataSource): Statements {
  let statements = cache.get(dataSource);
  if (!statements)
    cache.set(dataSource, (statements = dataSource.options.type === 'better-sqlite3' ? new SqliteStatements(dataSource) : new PooledStatements(dataSource)));
  return statements;
}

/**
 * Rows of a read through `manager`: inside a transaction (a manager with its own query runner) through
 * TypeORM as before; outside one through the data source's prepared statements (`statementsOf`), the
 * same single connection on SQLite without TypeORM's per-query promises and events.
 */
export function readRows<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  return manager.queryRunner ? manager.query(sql, parameters) : statementsOf(manager.connection).rows<T>(sql, parameters);
}

/** The SQLite implementation, or undefined on MySQL/MariaDB (UnitOfWork's group commit uses it). */
export function sqliteStatementsOf(dataSource: DataSource): SqliteStatements | undefined {
  const statements = statementsOf(dataSource);
  return statements instanceof SqliteStatements ? statements : undefined;
}

/** The part of mysql2's (callback) pool that TypeORM's MySQL driver holds. */
interface MysqlPool {
  query(sql: string, parameters: unknown[], callback: (error: Error | null, result: unknown) => void): void;
}

/**
 * The MySQL/MariaDB implementation: one statement on a connection of TypeORM's pool, in autocommit.
 * Straight through mysql2's pool rather than `DataSource.query`, whose query runner adds a logger call,
 * broadcaster events, a copy of the rows and four promises per statement (BENCHMARKS.md, "MariaDB").
 */
export class PooledStatements implements Statements {
  constructor(private readonly dataSource: DataSource) {}

  rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return this.query(sql, parameters) as Promise<T[]>;
  }

  /** Rows of a read, or mysql2's result header (`affectedRows`) of a write. */
  query(sql: string, parameters: unknown[]): Promise<unknown> {
    // Read at each call: the driver creates its pool when the data source is initialised.
    const pool = (this.dataSource.driver as unknown as { pool: MysqlPool }).pool;
    return new Promise((resolve, reject) =>
      pool.query(sql, parameters, (error, result) => (error ? reject(new QueryFailedError(sql, parameters, error)) : resolve(result))),
    );
  }
}

/** The MySQL/MariaDB implementation, or undefined on SQLite (UnitOfWork's single statements use it). */
export function pooledStatementsOf(dataSource: DataSource): PooledStatements | undefined {
  const statements = statementsOf(dataSource);
  return statements instanceof PooledStatements ? statements : undefined;
}

export class SqliteStatements implements Statements {
  private readonly prepared = new Map<string, SqliteStatement>();
  private connection: SqliteConnection | undefined;

  constructor(private readonly dataSource: DataSource) {}

  rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    try {
      return Promise.resolve(this.statement(sql).all(...parameters) as T[]);
    } catch (error) {
      return Promise.reject(new QueryFailedError(sql, parameters, error as Error));
    }
  }

  /** Runs a write now, synchronously; the number of rows it changed. */
  run(sql: string, parameters: unknown[]): number {
    try {
      return this.statement(sql).run(...parameters).changes;
    } catch (error) {
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  /** Whether the shared connection is inside a transaction (a failed COMMIT or a fatal error ends it). */
  get inTransaction(): boolean {
    return this.current().inTransaction;
  }

  private statement(sql: string): SqliteStatement {
    const connection = this.current();
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      // The hot paths use a fixed set of statements; a bound keeps a mistake from growing the map.
      if (this.prepared.size >= 200) this.prepared.clear();
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  /** TypeORM's single better-sqlite3 connection; statements are prepared again if it was reopened. */
  private current(): SqliteConnection {
    const connection = (this.dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
    if (connection !== this.connection) {
      this.prepared.clear();
      this.connection = connection;
    }
    return connection;
  }
}
