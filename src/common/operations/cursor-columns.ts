/**
 * The columns of an item that a worker follows the event log for under a lease (a webhook subscription,
 * docs/webhooks.md; an outbound SCIM target, docs/provisioning.md): the position of the last event it has taken
 * (`cursor_position`), when it may next try (`next_attempt_at`, a back-off) and when it was created. Integers come
 * back as strings from MariaDB's BIGINT columns.
 */
export interface RawCursorColumns {
  cursor_position: number | string;
  next_attempt_at: number | string;
  created_at: number | string;
}

export interface CursorState {
  cursor: number;
  nextAttemptAt: number;
  createdAt: number;
}

export function cursorStateOf(row: RawCursorColumns): CursorState {
  return { cursor: Number(row.cursor_position), nextAttemptAt: Number(row.next_attempt_at), createdAt: Number(row.created_at) };
}
