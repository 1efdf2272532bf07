import { foldCase } from '../../common/text/case-fold.js';

/** Length of `users.search_text`: with (org_id, user_name_lower) it fits one MariaDB index key (3,072 bytes, utf8mb4). */
export const SEARCH_TEXT_LENGTH = 400;

/** Joins the fields: no query matches across two of them (queries may not contain it, see the list DTO). */
export const SEARCH_SEPARATOR = '\n';

export interface Searchable {
  userName: string;
  givenName?: string | null;
  familyName?: string | null;
  /** A human's display name, a machine's name. */
  displayName?: string | null;
  email?: string | null;
}

/**
 * What the management API's user search matches (docs/product-rules.md, "API"): the user name, e-mail,
 * first, last and display name, case-folded by the service's one rule (src/common/text/case-fold.ts),
 * so SQL compares plain text alike on SQLite and MariaDB. Kept in one narrow indexed column, so a
 * substring search reads an index rather than every user row. A display name that only repeats
 * "first last" is left out; past SEARCH_TEXT_LENGTH characters the text is cut (the user name and e-mail
 * come first).
 */
export function searchText(user: Searchable): string {
  const names = [user.givenName, user.familyName].filter((n): n is string => !!n);
  const display = user.displayName && user.displayName !== names.join(' ') ? user.displayName : null;
  const fields = [user.userName, user.email, ...names, display].filter((f): f is string => !!f);
  return foldCase(fields.join(SEARCH_SEPARATOR)).slice(0, SEARCH_TEXT_LENGTH);
}
