import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyedUpdate, RowBatches, rowInsert } from './row-batches.js';

/** Batches whose statements are recorded; the first statement is held until `release()`. */
function recorded(fail?: (sql: string, parameters: unknown[]) => boolean) {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const batches = new RowBatches(async (sql, parameters) => {
    statements.push({ sql, parameters });
    if (statements.length === 1) await held;
    if (fail?.(sql, parameters)) throw new Error('refused');
  });
  return { batches, statements, release };
}

describe('row batches', () => {
  it('writes the first row at once and the rows that arrive meanwhile as one statement', async () => {
    const { batches, statements, release } = recorded();
    const insert = rowInsert('INSERT INTO t (a, b) VALUES', '(?, ?)', 'ON DUPLICATE KEY UPDATE b = VALUES(b)');
    const writes = [1, 2, 3].map((n) => batches.add(insert, [n, `v${n}`]));
    release();
    await Promise.all(writes);
    assert.deepEqual(statements, [
      { sql: 'INSERT INTO t (a, b) VALUES (?, ?) ON DUPLICATE KEY UPDATE b = VALUES(b)', parameters: [1, 'v1'] },
      { sql: 'INSERT INTO t (a, b) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE b = VALUES(b)', parameters: [2, 'v2', 3, 'v3'] },
    ]);
  });

  it('updates rows by key with the leading parameters taken when each batch is written, before the keys', async () => {
    const { batches, statements, release } = recorded();
    let now = 100;
    const update = keyedUpdate('UPDATE t SET at = ? WHERE kind = ?', 'k', () => [now, 'kind']);
    const first = batches.add(update, ['a']);
    const rest = ['b', 'c'].map((key) => batches.add(update, [key]));
    now = 200;
    release();
    await Promise.all([first, ...rest]);
    assert.deepEqual(statements, [
      { sql: 'UPDATE t SET at = ? WHERE kind = ? AND k IN ( ? )', parameters: [100, 'kind', 'a'] },
      { sql: 'UPDATE t SET at = ? WHERE kind = ? AND k IN ( ?, ? )', parameters: [200, 'kind', 'b', 'c'] },
    ]);
  });

  it('writes a refused batch again row by row, so that only the bad row fails', async () => {
    const { batches, statements, release } = recorded((sql, parameters) => sql.includes('), (') || parameters.includes('bad'));
    const insert = rowInsert('INSERT INTO t (a) VALUES', '(?)', '');
    const first = batches.add(insert, ['first']);
    const good = batches.add(insert, ['good']);
    const bad = batches.add(insert, ['bad']);
    release();
    await first;
    await good;
    await assert.rejects(bad);
    assert.deepEqual(
      statements.map((s) => s.parameters),
      [['first'], ['good', 'bad'], ['good'], ['bad']],
    );
  });
});
