/**
 * An `INSERT` of one row that may be joined with others of the same statement into one multi-row `INSERT`:
 * `head` ends with `VALUES`, `row` is one row's placeholders (`(?, ?, …)`), `tail` follows the rows (an
 * `ON DUPLICATE KEY UPDATE` of `VALUES(col)`, which refers to each row's own values).
 */
export interface RowInsert {
  head: string;
  row: string;
  tail: string;
  /** The statement for one row. */
  single: string;
}

export function rowInsert(head: string, row: string, tail: string): RowInsert {
  return { head, row, tail, single: `${head} ${row} ${tail}` };
}

interface PendingRow {
  parameters: unknown[];
  resolve(): void;
  reject(error: unknown): void;
}

/** Rows of one statement at most: the bench's 10 concurrent writers queue up to 10 per process. */
const MAX_ROWS = 32;

/**
 * MySQL/MariaDB group commit for single-row writes that need no events (oidc-provider's tokens): the rows of one
 * statement that arrive while its previous batch is on the server go together in the next one, one statement
 * and one commit (autocommit) instead of one of each per row. Every caller hears back only after that commit.
 * One batch per statement is on the server at a time; the first row of a quiet moment goes at once.
 *
 * `run` executes one statement in autocommit, retrying deadlocks and certification conflicts (unit-of-work.ts).
 * A batch the server refuses for another reason is written again row by row, so that a bad row fails alone.
 */
export class RowBatches {
  private readonly pending = new Map<RowInsert, PendingRow[]>();
  private readonly busy = new Set<RowInsert>();

  constructor(private readonly run: (sql: string, parameters: unknown[]) => Promise<unknown>) {}

  insert(insert: RowInsert, parameters: unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const rows = this.pending.get(insert);
      if (rows) rows.push({ parameters, resolve, reject });
      else this.pending.set(insert, [{ parameters, resolve, reject }]);
      if (!this.busy.has(insert)) void this.drain(insert);
    });
  }

  private async drain(insert: RowInsert): Promise<void> {
    this.busy.add(insert);
    try {
      for (let rows = this.take(insert); rows.length > 0; rows = this.take(insert)) await this.write(insert, rows);
    } finally {
      this.busy.delete(insert);
    }
  }

  private take(insert: RowInsert): PendingRow[] {
    const rows = this.pending.get(insert) ?? [];
    const taken = rows.splice(0, MAX_ROWS);
    if (rows.length === 0) this.pending.delete(insert);
    return taken;
  }

  private async write(insert: RowInsert, rows: PendingRow[]): Promise<void> {
    try {
      await this.run(`${insert.head} ${rows.map(() => insert.row).join(', ')} ${insert.tail}`, rows.flatMap((r) => r.parameters));
      for (const row of rows) row.resolve();
    } catch (error) {
      if (rows.length === 1) return rows[0].reject(error);
      await Promise.all(rows.map((row) => this.run(insert.single, row.parameters).then(row.resolve, row.reject)));
    }
  }
}
