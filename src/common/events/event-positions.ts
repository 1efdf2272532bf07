import type { EntityManager } from 'typeorm';

/**
 * Event positions in commit order (docs/product-rules.md, "Import and event search"; docs/architecture.md, "Data").
 *
 * On MySQL/MariaDB `events.position` is an AUTO_INCREMENT value, taken when the row is inserted, not
 * when its transaction commits: a transaction holding position 41 may commit after one holding 42, and
 * a reader that paged past 42 meanwhile would never see 41. So every transaction that inserts events
 * first updates the one row of `event_positions`; InnoDB keeps that row locked until the transaction
 * ends, so the next writer of events takes its positions only after the previous one committed (or
 * rolled back, which leaves a gap, never a late arrival). A transaction takes the lock again for each
 * push; a row lock it already holds costs one statement.
 *
 * SQLite needs nothing: one connection writes at a time, holding the write lock from its first write
 * until COMMIT, so its rowids are assigned in commit order already.
 */
export const TAKE_EVENT_POSITIONS_SQL = 'UPDATE event_positions SET taken = taken + 1 WHERE id = 1';

/** Takes the event-position lock inside `manager`'s transaction (MySQL/MariaDB), before events are inserted. */
export async function takeEventPositions(manager: EntityManager): Promise<void> {
  if (manager.connection.options.type === 'better-sqlite3') return;
  await manager.query(TAKE_EVENT_POSITIONS_SQL);
}
