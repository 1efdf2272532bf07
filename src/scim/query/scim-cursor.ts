import { ScimError } from '../errors/scim-error.js';

/** Where a cursor page starts: after the row with this sort key and id, in the order it was read in. */
export interface CursorPosition {
  value: string | number | null;
  id: string;
}

/**
 * A query paged by cursor (RFC 9865): `after` is absent for the first page (`cursor=` empty).
 * Cursors do not expire: one names a position in the order, not a stored result set.
 */
export interface CursorPaging {
  after?: CursorPosition;
}

const MAX_KEY_LENGTH = 1024;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The cursor after a row: base64url (RFC 4648 §5, only RFC 3986 unreserved characters, as RFC 9865 §2.1 asks)
 * of the JSON `[sort key, descending, sort value, id]`. It is opaque to clients but not secret: it only says where
 * the page starts, and the page still holds only what the caller's filter and rights allow.
 */
export function encodeCursor(sortKey: string, descending: boolean, position: CursorPosition): string {
  return Buffer.from(JSON.stringify([sortKey, descending ? 1 : 0, position.value, position.id])).toString('base64url');
}

/**
 * The position a client's cursor names, for this sort key and order; 400 `invalidCursor` (RFC 9865 §2.3) when it
 * is not one this service made for the same order (another sortBy or sortOrder, a changed character, another shape).
 */
export function decodeCursor(cursor: string, sortKey: string, descending: boolean): CursorPosition {
  const invalid = () => ScimError.badRequest('invalidCursor', 'the cursor is not one this service gave for this query');
  if (cursor.length > 4 * MAX_KEY_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const bytes = Buffer.from(cursor, 'base64url');
  // Only the canonical spelling: a cursor changed in its padding bits is not one we gave.
  if (bytes.toString('base64url') !== cursor) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) throw invalid();
  const [key, order, value, id] = decoded as unknown[];
  if (key !== sortKey || order !== (descending ? 1 : 0)) throw invalid();
  if (typeof id !== 'string' || !ID.test(id)) throw invalid();
  const validValue =
    value === null || (typeof value === 'string' && value.length <= MAX_KEY_LENGTH) || (typeof value === 'number' && Number.isSafeInteger(value));
  if (!validValue) throw invalid();
  return { value: value as CursorPosition['value'], id };
}
