import { foldCase } from '../../common/text/case-fold.js';
import type { CompareOperator, CompValue } from './scim-filter.ast.js';
import { parseDateTime } from './scim-filter.datetime.js';
import { getCi, isRecord } from './scim-filter.objects.js';

/**
 * Compares one attribute value with a filter literal (RFC 7644 §3.4.2.2, Table 3).
 * - Strings compare case-insensitively unless `caseExact` (RFC 7643 §2.2: caseExact defaults to false),
 *   by the service's one folding rule (src/common/text/case-fold.ts), as the SQL filters do.
 * - Strings that both parse as date-times order as instants (`gt`, `ge`, `lt`, `le`, and `eq`
 *   when both carry a time), so offsets and precision do not matter.
 * - Booleans equal `true`/`false` and, leniently, the strings "True"/"False" in any case.
 * - Numbers compare only with numbers: `6` is not equal to `"6"`.
 * - Values of different types are never equal and never ordered; so `ne` is true for them.
 * - A complex value compares through its `value` sub-attribute (RFC 7644 example `emails co "example.com"`).
 * `null` literals are handled by the caller (`eq null` means "not present").
 */
export function compareValue(actual: unknown, op: CompareOperator, expected: CompValue, caseExact: boolean): boolean {
  const value = isRecord(actual) ? getCi(actual, 'value') : actual;
  if (value === undefined || value === null) return false;
  switch (op) {
    case 'eq':
      return equals(value, expected, caseExact);
    case 'ne':
      return !equals(value, expected, caseExact);
    case 'co':
    case 'sw':
    case 'ew':
      return substringMatch(value, op, expected, caseExact);
    case 'gt':
      return order(value, expected, caseExact) > 0;
    case 'ge':
      return order(value, expected, caseExact) >= 0;
    case 'lt':
      return order(value, expected, caseExact) < 0;
    case 'le':
      return order(value, expected, caseExact) <= 0;
  }
}

function equals(value: unknown, expected: CompValue, caseExact: boolean): boolean {
  if (typeof value === 'boolean') {
    if (typeof expected === 'boolean') return value === expected;
    return typeof expected === 'string' && /^(true|false)$/i.test(expected) && (expected.toLowerCase() === 'true') === value;
  }
  if (typeof value === 'number') return typeof expected === 'number' && value === expected;
  if (typeof expected !== 'string') return false;
  if (value instanceof Date) return value.getTime() === parseDateTime(expected);
  if (typeof value !== 'string') return false;
  if (/[Tt]\d/.test(value) && /[Tt]\d/.test(expected)) {
    const a = parseDateTime(value);
    const b = parseDateTime(expected);
    if (a !== undefined && b !== undefined) return a === b;
  }
  return fold(value, caseExact) === fold(expected, caseExact);
}

function substringMatch(value: unknown, op: 'co' | 'sw' | 'ew', expected: CompValue, caseExact: boolean): boolean {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== 'string' || typeof expected !== 'string') return false;
  const a = fold(text, caseExact);
  const b = fold(expected, caseExact);
  if (op === 'co') return a.includes(b);
  return op === 'sw' ? a.startsWith(b) : a.endsWith(b);
}

/** Sign of `value - expected`, or NaN when the two cannot be ordered (every comparison is then false). */
function order(value: unknown, expected: CompValue, caseExact: boolean): number {
  if (typeof value === 'number') return typeof expected === 'number' ? Math.sign(value - expected) : NaN;
  if (typeof expected !== 'string') return NaN;
  const expectedTime = parseDateTime(expected);
  if (value instanceof Date) return expectedTime === undefined ? NaN : Math.sign(value.getTime() - expectedTime);
  if (typeof value !== 'string') return NaN;
  const valueTime = parseDateTime(value);
  if (valueTime !== undefined && expectedTime !== undefined) return Math.sign(valueTime - expectedTime);
  const a = fold(value, caseExact);
  const b = fold(expected, caseExact);
  return a < b ? -1 : a > b ? 1 : 0;
}

function fold(text: string, caseExact: boolean): string {
  return caseExact ? text : foldCase(text);
}
