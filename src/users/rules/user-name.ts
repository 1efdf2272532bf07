import { characterCount } from '../../common/text/column-bounds.js';
import { STRING_BOUNDS } from './string-bounds.js';

/**
 * What no user name may contain, anywhere (docs/product-rules.md, "Domain"): white space of any Unicode kind
 * (`\s`: space, tab, line breaks, NBSP U+00A0, U+2000–U+200A, U+3000, U+FEFF, …), control characters (Cc) and
 * invisible format characters (Cf: zero-width space, joiners U+200B–U+200D, word joiner U+2060, bidi controls).
 * Such a name looks like another one, or like itself without them: MariaDB's PAD SPACE collation made a
 * trailing space collide where SQLite stored it, and the login form trims what it is given.
 */
const REFUSED = /[\s\p{Cc}\p{Cf}]/u;

/**
 * Why a user name is refused, or undefined; the same rule for SCIM, the management API, import, registration and
 * users created just in time from an upstream identity provider. Beside REFUSED, a name must be in Unicode NFKC form
 * (UAX #15): a full-width `ｕser`, a ligature `ﬁ` or a decomposed `Ä` would look like another user's name.
 */
export function userNameProblem(userName: string): string | undefined {
  if (userName.length === 0) return 'must not be empty';
  if (characterCount(userName) > STRING_BOUNDS.userName) return `must be at most ${STRING_BOUNDS.userName} characters`;
  if (REFUSED.test(userName)) return 'must not contain white space, control or invisible format characters';
  if (userName.normalize('NFKC') !== userName) return 'must be written without full-width or compatibility characters (Unicode NFKC)';
  return undefined;
}

/** Characters a login form trims from what was typed or pasted: the same classes as REFUSED, at the edges only. */
const EDGES = /^[\s\p{Cc}\p{Cf}]+|[\s\p{Cc}\p{Cf}]+$/gu;

/**
 * The login name as typed, without surrounding white space or invisible characters (a paste often brings a
 * trailing space or a zero-width joiner). No user name begins or ends with them (userNameProblem), so trimming
 * never hides a user: a user signs in with exactly the name it was created with.
 */
export function typedLoginName(typed: string): string {
  return typed.replace(EDGES, '');
}
