/**
 * A write of one row that may be joined with others of the same statement into one: `head`, then each row's `row`
 * joined by commas, then `tail`. An `INSERT` (`rowInsert`) ends its head with `VALUES`, each row is `(?, ?, …)` and
 * the tail an `ON DUPLICATE KEY UPDATE` of `VALUES(col)`, which refers to each row's own values. An `UPDATE` of rows
 * by key (`keyedUpdate`) lists the keys in `IN (…)`, with the parameters of its `SET` and `WHERE` first.
 */
export interface RowStatement {
  head: string;
  row: string;
  tail: string;
  /** Parameters before the rows' own, taken when the statement is written. */
  leading?: () => unknown[];
}

export function rowInsert(head: string, row: string, tail: string): RowStatement {
  return { head, row, tail };
}

/**
 * `update` (an `UPDATE … WHERE …` whose placeholders `leading` fills when the statement is written) for the rows
 * whose `keyColumn` is one of the batch's keys: every row of a batch gets the same `SET` values.
 */
export function keyedUpdate(update: string, keyColumn: string, leading: () => unknown[]): RowStatement {
  return { head: `${update} AND ${keyColumn} IN (`, row: '?', tail: ')', leading };
}

/** The SQL and parameters of `statement` for these rows (one, or a batch), its leading parameters taken now. */
export function statementFor(statement: RowStatement, rows: unknown[][]): { sql: string; parameters: unknown[] } {
  return {
    sql: `${statement.head} ${rows.map(() => statement.row).join(', ')} ${statement.tail}`,
    parameters: [...(statement.leading?.() ?? []), ...rows.flat()],
  };
}

interface PendingRow {
  parameters: unknown[];
  resolve(): void;
  reject(error: unknown): void;
}

/** Rows of one statement at most: the bench's 10 concurrent writers queue up to 10 per process. */
const MAX_ROWS = 32;

/**
 * MySQL/MariaDB group commit for single-row writes that need no events (oidc-provider's tokens, and their
 * consumption): the rows of one statement that arrive while its previous batch is on the server go together in the
 * next one, one statement and one commit (autocommit) instead of one of each per row. Every caller hears back only
 * after that commit. One batch per statement is on the server at a time; the first row of a quiet moment goes at once.
 *
 * `run` executes one statement in autocommit, retrying deadlocks and certification conflicts (unit-of-work.ts).
 * A batch the server refuses for another reason is written again row by row, so that a bad row fails alone.
 */
export class RowBatches {
  private readonly pending = new Map<RowStatement, PendingRow[]>();
  private readonly busy = new Set<RowStatement>();

  constructor(private readonly run: (sql: string, parameters: unknown[]) => Promise<unknown>) {}

  add(statement: RowStatement, parameters: unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const rows = this.pending.get(statement);
      if (rows) rows.push({ parameters, resolve, reject });
      else this.pending.set(statement, [{ parameters, resolve, reject }]);
      if (!this.busy.has(statement)) void this.drain(statement);
    });
  }

  private async drain(statement: RowStatement): Promise<void> {
    this.busy.add(statement);
    try {
      for (let rows = this.take(statement); rows.length > 0; rows = this.take(statement)) await this.write(statement, rows);
    } finally {
      this.busy.delete(statement);
    }
  }

  private take(statement: RowStatement): PendingRow[] {
    const rows = this.pending.get(statement) ?? [];
    const taken = rows.splice(0, MAX_ROWS);
    if (rows.length === 0) this.pending.delete(statement);
    return taken;
  }

  private async write(statement: RowStatement, rows: PendingRow[]): Promise<void> {
    const runFor = (batch: PendingRow[]) => {
      const { sql, parameters } = statementFor(
        statement,
        batch.map((row) => row.parameters),
      );
      return this.run(sql, parameters);
    };
    try {
      await runFor(rows);
      for (const row of rows) row.resolve();
    } catch (error) {
      if (rows.length === 1) return rows[0].reject(error);
      await Promise.all(rows.map((row) => runFor([row]).then(row.resolve, row.reject)));
    }
  }
}
