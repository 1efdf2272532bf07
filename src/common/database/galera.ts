import { Injectable } from '@nestjs/common';
import type { OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppLogger } from '../http/logging.js';

interface PooledConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

export interface MysqlPool {
  /** mysql2's list of the pool's open connections (lib/base/pool.js), busy or idle. */
  _allConnections?: { toArray(): PooledConnection[] };
  on(event: 'connection', listener: (connection: PooledConnection) => void): void;
  getConnection(callback: (error: Error | null, connection: PooledConnection & { release(): void }) => void): void;
}

/** The session setting that makes a read on one node wait until it has applied every write the cluster committed before it. */
const SYNC_WAIT_SQL = 'SET SESSION wsrep_sync_wait = 1';

/**
 * MariaDB Galera (docs/high-availability.md): every node takes writes, and a node applies the others'
 * writes a moment after they commit. A read that follows a write made through another node (a SCIM create, then its
 * GET; a token issued by one process, introspected by another) must see it: each connection of the pool sets
 * `wsrep_sync_wait = 1`, so its reads wait for causality. Detected at start-up (`@@wsrep_on`); nothing changes on a
 * single server or on SQLite.
 */
@Injectable()
export class GaleraSessions implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
  ) {}

  private clustered = false;

  async onModuleInit(): Promise<void> {
    if (this.dataSource.options.type !== 'mysql' || !(await this.isClustered())) return;
    this.clustered = true;
    await this.prepare((this.dataSource.driver as unknown as { pool: MysqlPool }).pool);
    this.logger.root.info('MariaDB Galera cluster: every connection reads with wsrep_sync_wait = 1');
  }

  /** Gives every connection of `pool` the setting: the driver's, and one that replaces it on another node (DatabaseNodes). */
  async prepare(pool: MysqlPool): Promise<void> {
    if (!this.clustered) return;
    pool.on('connection', (connection) => connection.query(SYNC_WAIT_SQL, () => undefined));
    // Connections the pool opened before this ran (TypeORM checks the server when it creates a pool, and other modules
    // may read while theirs start) get it too; a busy one runs it after its current query (mysql2 queues commands).
    const open = pool._allConnections?.toArray();
    if (open !== undefined) {
      await Promise.all(open.map((connection) => new Promise<void>((resolve, reject) => connection.query(SYNC_WAIT_SQL, (e) => (e ? reject(e) : resolve())))));
      return;
    }
    await new Promise<void>((resolve, reject) =>
      pool.getConnection((error, connection) => {
        if (error) return reject(error);
        connection.query(SYNC_WAIT_SQL, (queryError) => {
          connection.release();
          if (queryError) reject(queryError);
          else resolve();
        });
      }),
    );
  }

  /** MySQL has no `wsrep_on` (the statement fails); a single MariaDB server has it OFF. */
  private async isClustered(): Promise<boolean> {
    try {
      const [row] = (await this.dataSource.query('SELECT @@wsrep_on AS wsrepOn')) as { wsrepOn: unknown }[];
      return wsrepOn(row?.wsrepOn);
    } catch {
      return false;
    }
  }
}

/** `@@wsrep_on` as MariaDB answers it (1, or ON): the server is a node of a Galera cluster. */
export function wsrepOn(value: unknown): boolean {
  return Number(value) === 1 || value === 'ON';
}
