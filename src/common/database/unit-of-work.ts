import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';

/**
 * Runs a state change and its events in one transaction (DESIGN §1).
 * TypeORM drives better-sqlite3 through a single shared connection, so two interleaved transactions
 * would silently nest; SQLite transactions are therefore queued one at a time. MySQL uses its pool.
 */
@Injectable()
export class UnitOfWork {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly serialize: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.serialize = dataSource.options.type === 'better-sqlite3';
  }

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.dataSource.transaction(work);
    const result = this.queue.then(() => this.dataSource.transaction(work));
    this.queue = result.catch(() => undefined);
    return result;
  }
}
