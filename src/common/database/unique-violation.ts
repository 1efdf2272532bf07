/** True when a database error is a unique-constraint violation (SQLite or MySQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'ER_DUP_ENTRY' || errno === 1062;
}
