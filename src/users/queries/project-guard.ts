import type { EntityManager } from 'typeorm';
import { lockingRead } from '../../common/database/locking-read.js';

/**
 * Takes a project's row for the rest of the caller's transaction before its applications are counted or one is
 * added (MySQL/MariaDB; SQLite has one writer). A write, not `SELECT … FOR UPDATE`: on a Galera cluster only writes
 * are certified across nodes, so a removal and an addition through two nodes cannot both commit (the later one is
 * rolled back with 1213 and runs again; docs/high-availability.md). The foreign key alone is not certified: the trial left an
 * application without its project. False when the project is gone.
 */
export async function guardProjectIn(manager: EntityManager, orgId: string, projectId: string): Promise<boolean> {
  if (manager.connection.options.type !== 'mysql') return true;
  const result = (await manager.query('UPDATE projects SET changed_at = ? WHERE id = ? AND org_id = ?', [Date.now(), projectId, orgId])) as {
    affectedRows?: number;
  };
  return result.affectedRows === 1;
}

/** Counts a project's applications as committed now (a locking read), not as the transaction's first snapshot saw them. */
export async function countApplicationsIn(manager: EntityManager, projectId: string): Promise<number> {
  const [row] = (await manager.query(`SELECT COUNT(*) AS n FROM applications WHERE project_id = ?${lockingRead(manager)}`, [projectId])) as {
    n: number | string;
  }[];
  return Number(row?.n ?? 0);
}
