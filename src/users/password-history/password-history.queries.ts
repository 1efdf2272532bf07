import type { EntityManager } from 'typeorm';
import { readRows } from '../../common/database/statements.js';
import { newId } from '../../common/ids.js';

/**
 * `password_history`: a person's previous password hashes, newest first (docs/operations.md, "Settings"). Only
 * hashes, as `users.password_hash` holds the current one; the plain password is never kept anywhere.
 */
interface HistoryRow {
  id: string;
  password_hash: string;
}

/** The user's current hash (null: no password). */
export async function currentHashIn(manager: EntityManager, userId: string): Promise<string | null> {
  const [row] = await readRows<{ password_hash: string | null }>(manager, 'SELECT password_hash FROM users WHERE id = ?', [userId]);
  return row?.password_hash ?? null;
}

/** The current hash, then the newest `previous` earlier ones. */
export async function recentHashes(manager: EntityManager, userId: string, previous: number): Promise<string[]> {
  const current = await currentHashIn(manager, userId);
  const hashes = current ? [current] : [];
  if (previous <= 0) return hashes;
  const rows = await readRows<HistoryRow>(
    manager,
    'SELECT id, password_hash FROM password_history WHERE user_id = ? ORDER BY replaced_at DESC, id DESC LIMIT ?',
    [userId, previous],
  );
  return [...hashes, ...rows.map((row) => row.password_hash)];
}

/** Keeps `replaced` (the hash being replaced, if any) and at most `keep` previous hashes of the user in all. */
export async function keepPreviousIn(manager: EntityManager, userId: string, replaced: string | null, keep: number): Promise<void> {
  if (keep <= 0) {
    await manager.query('DELETE FROM password_history WHERE user_id = ?', [userId]);
    return;
  }
  if (replaced)
    await manager.query('INSERT INTO password_history (id, user_id, password_hash, replaced_at) VALUES (?, ?, ?, ?)', [newId(), userId, replaced, Date.now()]);
  const rows = await readRows<HistoryRow>(manager, 'SELECT id, password_hash FROM password_history WHERE user_id = ? ORDER BY replaced_at DESC, id DESC', [
    userId,
  ]);
  const dropped = rows.slice(keep).map((row) => row.id);
  if (dropped.length > 0) await manager.query(`DELETE FROM password_history WHERE id IN (${dropped.map(() => '?').join(', ')})`, dropped);
}

/**
 * After the policy's history was shortened: every person keeps at most `keep` previous hashes (none for 0), so no
 * hash is kept longer than the policy needs it.
 */
export async function pruneAllIn(manager: EntityManager, keep: number): Promise<void> {
  if (keep <= 0) {
    await manager.query('DELETE FROM password_history', []);
    return;
  }
  const rows = await readRows<{ user_id: string }>(manager, 'SELECT user_id FROM password_history GROUP BY user_id HAVING COUNT(*) > ?', [keep]);
  for (const { user_id } of rows) await keepPreviousIn(manager, user_id, null, keep);
}
