/** `?, ?, ?` for a list of bound values: SQL text never carries the values themselves. */
export function placeholders(count: number): string {
  return new Array(count).fill('?').join(', ');
}

/**
 * A row limit written into the SQL text, the one value that is: SQLite re-prepares a statement whose
 * `LIMIT` is a bound parameter at every run (the planner reads the limit), which measured ≈ 30 µs more per
 * lookup than the literal (BENCHMARKS.md, "Per-request overhead"). Only a non-negative safe integer is
 * accepted, so nothing a client sends reaches the text; page sizes take few values, so the statement
 * cache keeps one statement per size.
 */
export function literalLimit(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`not a row limit: ${String(limit)}`);
  return String(limit);
}
