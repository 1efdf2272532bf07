import type { AttrPath, CompValue, CompareNode, FilterNode, PresentNode, ValuePathNode } from '../filter/index.js';
import { FOLD_SQL_FUNCTION, foldCase } from '../../common/text/case-fold.js';
import { ScimError } from '../errors/scim-error.js';

export type SqlDialect = 'sqlite' | 'mysql';

/**
 * The comparisons of SCIM filters (RFC 7644 §3.4.2.2) as SQL that answers alike on SQLite and MariaDB,
 * with named parameters (`:f0`, `:f1`, …) collected in `params`: values are never spliced into the text.
 * Each resource's filter compiler (Users, Groups) maps attributes to columns and uses these.
 */
export abstract class SqlComparisons {
  readonly params: Record<string, unknown> = {};
  private count = 0;

  constructor(protected readonly dialect: SqlDialect) {}

  /** A filter's `and`, `or` and `not` as SQL; its other nodes are compiled by `term`. */
  protected logical(node: FilterNode, term: (node: CompareNode | PresentNode | ValuePathNode) => string): string {
    switch (node.kind) {
      case 'and':
        return `(${this.logical(node.left, term)} AND ${this.logical(node.right, term)})`;
      case 'or':
        return `(${this.logical(node.left, term)} OR ${this.logical(node.right, term)})`;
      case 'not':
        return `(NOT ${this.logical(node.filter, term)})`;
      default:
        return term(node);
    }
  }

  /**
   * A column the application stored lower-cased with `toLowerCase()`. Only when the sigma rule of
   * `foldCase` can matter (the value has a σ) or for ordering is the column folded in SQL; otherwise
   * equal lower-cased strings are equal folded ones, and `=` keeps using the column's index.
   */
  protected loweredText(column: string, op: CompareNode['op'], value: string): string {
    const folded = foldCase(value);
    if (folded.includes('σ') || !['eq', 'ne', 'co', 'sw', 'ew'].includes(op)) return this.text(`REPLACE(${column}, 'ς', 'σ')`, op, folded, false, column);
    return this.text(column, op, folded, false);
  }

  /** A column stored as sent: folded in SQL by the application's rule (src/common/text/case-fold.ts). */
  protected foldedText(column: string, op: CompareNode['op'], value: string): string {
    // MariaDB's LOWER() maps "İ" to "i" where toLowerCase() gives "i̇" (i + U+0307): spelled out first.
    const expr = this.dialect === 'sqlite' ? `${FOLD_SQL_FUNCTION}(${column})` : `REPLACE(LOWER(REPLACE(${column}, 'İ', 'i̇')), 'ς', 'σ')`;
    return this.text(expr, op, foldCase(value), false, column);
  }

  /**
   * String comparisons; `guard` is the raw column, so that an unassigned value never matches (nor its
   * `ne`). MariaDB's utf8mb4_bin is PAD SPACE ("a" = "a  "), SQLite's BINARY is not: there equality
   * also compares lengths, and ordering uses the no-pad collation, so both databases answer alike.
   */
  protected text(expr: string, op: CompareNode['op'], value: string, exact: boolean, guard = expr): string {
    const p = this.param(value);
    const notNull = `${guard} IS NOT NULL AND `;
    const len = this.dialect === 'sqlite' ? 'LENGTH' : 'CHAR_LENGTH';
    const equal = this.dialect === 'sqlite' ? `${expr} = ${p}` : `${expr} = ${p} AND ${len}(${expr}) = ${len}(${p})`;
    switch (op) {
      case 'eq':
        return `(${notNull}${equal})`;
      case 'ne':
        return `(${notNull}NOT (${equal}))`;
      case 'gt':
      case 'ge':
      case 'lt':
      case 'le':
        return `(${notNull}${expr} ${SQL_OPERATORS.get(op)} ${p}${this.dialect === 'mysql' ? ' COLLATE utf8mb4_nopad_bin' : ''})`;
      case 'co':
      case 'sw':
      case 'ew':
        // Every string contains, starts and ends with "" (and SUBSTR(x, -0) differs between the two).
        if (value === '') return `(${guard} IS NOT NULL)`;
        if (exact) return `(${notNull}${exactMatch(expr, op, p, len)})`;
        this.params[p.slice(1)] = likePattern(value, op);
        return `(${notNull}${expr} LIKE ${p} ESCAPE '!')`;
    }
  }

  protected ordered(expr: string, op: CompareNode['op'], value: unknown, what: string): string {
    const sqlOp = SQL_OPERATORS.get(op);
    if (!sqlOp) throw unsupported(`"${op}" on ${what}`);
    return `(${expr} ${sqlOp} ${this.param(value)})`;
  }

  protected param(value: unknown): string {
    const name = `f${this.count++}`;
    this.params[name] = value;
    return `:${name}`;
  }
}

const SQL_OPERATORS = new Map<string, string>([
  ['eq', '='],
  ['ne', '<>'],
  ['gt', '>'],
  ['ge', '>='],
  ['lt', '<'],
  ['le', '<='],
]);

/** Case-sensitive co/sw/ew without LIKE (SQLite's LIKE ignores ASCII case); `len` counts characters. */
function exactMatch(expr: string, op: 'co' | 'sw' | 'ew', p: string, len: string): string {
  if (op === 'co') return `INSTR(${expr}, ${p}) > 0`;
  const long = `${len}(${expr}) >= ${len}(${p})`;
  if (op === 'sw') return `${long} AND SUBSTR(${expr}, 1, ${len}(${p})) = ${p}`;
  return `${long} AND SUBSTR(${expr}, -${len}(${p})) = ${p}`;
}

function likePattern(value: string, op: 'co' | 'sw' | 'ew'): string {
  const escaped = value.replace(/[!%_]/g, (c) => `!${c}`);
  return op === 'co' ? `%${escaped}%` : op === 'sw' ? `${escaped}%` : `%${escaped}`;
}

export function stringValue(value: CompValue, path: AttrPath): string {
  // SQLite reads LIKE patterns up to a NUL, so "a\u0000" would become "a"; and no stored text holds one
  // (the User body validator refuses it).
  if (typeof value === 'string' && value.includes('\u0000'))
    throw ScimError.badRequest('invalidFilter', `"${path.path}" compares with a string containing U+0000`);
  if (typeof value === 'string') return value;
  throw ScimError.badRequest('invalidFilter', `"${path.path}" compares with a string, not ${JSON.stringify(value)}`);
}

export function unsupported(what: string): ScimError {
  return ScimError.badRequest('invalidFilter', `${what} is not supported`);
}
