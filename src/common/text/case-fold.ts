/**
 * The one case-insensitive text rule of the service (RFC 7643 §2.2 `caseExact: false`), the same on
 * SQLite and MariaDB:
 * - Unicode default lower-casing, `String.prototype.toLowerCase()` without a locale: "Ärger" ≡ "ärger";
 *   Turkish "I"/"ı" and "İ"/"i" are NOT paired (that is the tr/az locale's rule, and a user name has
 *   no locale): "IRMAK" ≡ "irmak", not "ırmak";
 * - the final sigma "ς" counts as "σ", so that "ΣΊΣΥΦΟΣ" ≡ "σίσυφος" ≡ "σίσυφοσ", also in substrings
 *   ("ΣΊΣ" sw-matches "σίσυφος"), where the context rule of lower-casing would otherwise differ.
 * Columns kept lower-cased by the application (`user_name_lower`, contact `value_lower`) were lowered
 * by `toLowerCase()`. Other columns are folded in SQL: on SQLite by this very function, registered as
 * `FOLD_SQL_FUNCTION` (SQLite's own LOWER() is ASCII-only); on MariaDB by LOWER() with "İ" and the
 * sigma spelled out, whose Unicode tables then agree with this rule except for letters newer than them.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().replace(/ς/g, 'σ');
}

/** Name under which `foldCase` is registered as a deterministic SQLite function. */
export const FOLD_SQL_FUNCTION = 'portcullis_fold';
