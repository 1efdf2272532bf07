import type { EntityManager } from 'typeorm';

/**
 * The suffix that makes a SELECT a locking read on MySQL/MariaDB: it reads what is committed now, not the snapshot
 * of the transaction's first read (InnoDB's REPEATABLE READ), and holds a shared lock until the transaction ends.
 * `LOCK IN SHARE MODE`, not `FOR SHARE`: MariaDB 10.11 has only the former (TypeORM's `pessimistic_read` writes the
 * latter). SQLite needs none: one writer at a time, and its transactions take the write lock at BEGIN.
 */
export function lockingRead(manager: EntityManager): string {
  return manager.connection.options.type === 'mysql' ? ' LOCK IN SHARE MODE' : '';
}
