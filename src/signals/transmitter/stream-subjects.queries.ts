import type { EntityManager } from 'typeorm';
import { changedRows } from '../../common/database/changed-rows.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';

/** The SQL of `ssf_stream_subjects` and of `ssf_streams.subjects` (src/signals owns them; docs/signals.md, "Subjects"). */

/** Which subjects a stream carries: everyone its application admits, or only those its receiver added. */
export interface StreamSubjects {
  onlyAdded: boolean;
  keys: ReadonlySet<string>;
}

export async function subjectsOf(manager: EntityManager, streamId: string): Promise<StreamSubjects> {
  const [stream]: { subjects: string }[] = await manager.query('SELECT subjects FROM ssf_streams WHERE id = ?', [streamId]);
  if (stream?.subjects !== 'added') return { onlyAdded: false, keys: new Set() };
  const rows: { subject_key: string }[] = await manager.query('SELECT subject_key FROM ssf_stream_subjects WHERE stream_id = ?', [streamId]);
  return { onlyAdded: true, keys: new Set(rows.map((r) => r.subject_key)) };
}

export async function countSubjects(manager: EntityManager, streamId: string): Promise<number> {
  const [row]: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM ssf_stream_subjects WHERE stream_id = ?', [streamId]);
  return Number(row.n);
}

/** Adds the subject (once) and makes the stream carry only added subjects from now on. */
export async function addSubject(manager: EntityManager, streamId: string, key: string, now = Date.now()): Promise<void> {
  await manager.query("UPDATE ssf_streams SET subjects = 'added' WHERE id = ?", [streamId]);
  const [found]: unknown[] = await manager.query('SELECT 1 AS found FROM ssf_stream_subjects WHERE stream_id = ? AND subject_key = ?', [streamId, key]);
  if (found) return;
  try {
    await manager.query('INSERT INTO ssf_stream_subjects (stream_id, subject_key, created_at) VALUES (?, ?, ?)', [streamId, key, now]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/** Whether the subject was the stream's. */
export async function removeSubject(manager: EntityManager, streamId: string, key: string): Promise<boolean> {
  return (await changedRows(manager, 'DELETE FROM ssf_stream_subjects WHERE stream_id = ? AND subject_key = ?', [streamId, key])) === 1;
}

export async function dropSubjects(manager: EntityManager, streamId: string): Promise<void> {
  await manager.query('DELETE FROM ssf_stream_subjects WHERE stream_id = ?', [streamId]);
}
