import type { CursorPosition } from './scim-cursor.js';
import { ScimError } from '../errors/scim-error.js';

/** A sort column as a keyset condition needs it: its values' type and where its NULLs sort. */
export interface KeysetColumn {
  column: string;
  idColumn: string;
  numeric: boolean;
  /** Absent: the column has no NULLs. Otherwise whether NULLs come after every value in the page order. */
  nullsAfter?: boolean;
}

/**
 * The rows after `after` in the order `column dir, id dir` (keyset pagination): a condition the (org, key, id)
 * index serves as a range, so a page at any depth reads what the first page reads. The leading `column >= v` (or
 * `<=`) is what lets both databases seek rather than test every row. Named parameters `:keysetValue`,
 * `:keysetId`; a position whose value does not fit the column is 400 `invalidCursor` (RFC 9865 §2.3).
 */
export function keysetAfter(key: KeysetColumn, descending: boolean, after: CursorPosition): { sql: string; params: Record<string, unknown> } {
  const { column, idColumn } = key;
  const past = descending ? '<' : '>';
  const params = { keysetValue: after.value, keysetId: after.id };
  if (after.value === null) {
    if (key.nullsAfter === undefined) throw ScimError.badRequest('invalidCursor', 'the cursor is not one this service gave for this query');
    const thenValues = key.nullsAfter ? '' : ` OR ${column} IS NOT NULL`;
    return { sql: `(${column} IS NULL AND ${idColumn} ${past} :keysetId${thenValues})`, params: { keysetId: after.id } };
  }
  if ((typeof after.value === 'number') !== key.numeric) throw ScimError.badRequest('invalidCursor', 'the cursor is not one this service gave for this query');
  const thenNulls = key.nullsAfter ? ` OR ${column} IS NULL` : '';
  return {
    sql: `((${column} ${past}= :keysetValue AND (${column} ${past} :keysetValue OR ${idColumn} ${past} :keysetId))${thenNulls})`,
    params,
  };
}
