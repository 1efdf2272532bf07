import { makeAttrPath, type CompValue, type FilterNode } from '../filter/scim-filter.ast.js';
import { isValidAttrName } from '../filter/scim-filter.attr-path.js';
import { matchesValueFilter } from '../filter/scim-filter.matcher.js';
import { deepEqual, findKeyCi, getCi, isAssigned, isPlainObject, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';
import { canonicalName, type PatchContext } from './scim-patch.schema.js';

/**
 * A fresh copy of a client value about to be stored at `path` (normalised, e.g. `emails`,
 * `name.givenname`): "True"/"False" become booleans on boolean attributes, a bare id becomes
 * `{ value: id }` on value-object attributes, keys take their schema spelling, and null
 * sub-attributes are dropped (RFC 7643 §2.5: null means unassigned).
 */
export function normalizeValue(ctx: PatchContext, path: string, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => normalizeValue(ctx, path, item));
  if (typeof value === 'string' && ctx.valueObjects.has(path)) return { value };
  if (ctx.booleans.has(path)) return toBoolean(path, value);
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [key, sub] of Object.entries(value)) {
      assertAttributeName(path, key);
      if (sub === null || sub === undefined) continue;
      out[findKeyCi(out, key) ?? canonicalName(ctx, key)] = normalizeValue(ctx, `${path}.${key.toLowerCase()}`, sub);
    }
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  return value;
}

/**
 * Keys of a client value become keys of plain objects: `__proto__` would set the object's prototype
 * instead of a member. RFC 7643 §2.1 ATTRNAME excludes it (and every other non-name) anyway.
 */
function assertAttributeName(path: string, name: string): void {
  if (!isValidAttrName(name)) throw new ScimPatchError('invalidValue', `'${name}' in the value of '${path}' is not an attribute name`);
}

function toBoolean(path: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimPatchError('invalidValue', `Attribute '${path}' is a boolean; got ${JSON.stringify(value)}`);
}

/** Sets (or, for `null`, removes) sub-attribute `name` of a complex value, ignoring key case. */
export function setSubAttribute(ctx: PatchContext, target: JsonObject, parentPath: string, name: string, value: unknown): void {
  assertAttributeName(parentPath, name);
  const key = findKeyCi(target, name);
  if (value === null || value === undefined) {
    if (key !== undefined) delete target[key];
    return;
  }
  target[key ?? canonicalName(ctx, name)] = normalizeValue(ctx, `${parentPath}.${name.toLowerCase()}`, value);
}

/**
 * RFC 7643 §2.4: "The primary attribute value "true" MUST appear no more than once."
 * If one of the values just written is primary, every other value loses `primary`; two new
 * primaries in one operation are an `invalidValue`.
 */
export function enforceSinglePrimary(values: readonly unknown[], written: readonly unknown[], path: string): void {
  const winners = written.filter(isPrimary);
  if (winners.length > 1) {
    throw new ScimPatchError('invalidValue', `More than one value of '${path}' would have "primary": true (RFC 7643 §2.4)`);
  }
  const winner = winners[0];
  if (winner === undefined) return;
  for (const value of values) {
    if (value !== winner && isPlainObject(value) && isPrimary(value)) value[findKeyCi(value, 'primary') ?? 'primary'] = false;
  }
}

function isPrimary(value: unknown): boolean {
  return isPlainObject(value) && getCi(value, 'primary') === true;
}

/**
 * The value to create when a filtered path matches nothing: the filter must be `eq`
 * comparisons of plain sub-attributes joined by `and` (`type eq "work" and primary eq true`).
 */
export function elementFromFilter(ctx: PatchContext, filter: FilterNode): JsonObject | undefined {
  const element: JsonObject = {};
  const collect = (node: FilterNode): boolean => {
    if (node.kind === 'and') return collect(node.left) && collect(node.right);
    if (node.kind !== 'compare' || node.op !== 'eq' || node.value === null) return false;
    if (node.attrPath.uri !== undefined || node.attrPath.subAttribute !== undefined) return false;
    element[canonicalName(ctx, node.attrPath.attribute)] = node.value;
    return true;
  };
  return collect(filter) ? element : undefined;
}

/**
 * For `remove` with a `value` (Microsoft Entra ID: `{"op":"Remove","path":"members","value":[{"value":"id"}]}`):
 * a predicate selecting the stored values that `item` designates. An object matches values whose
 * listed sub-attributes are equal (`null` meaning unassigned); a simple value matches equal values
 * (or complex values whose `value` is equal). Equality follows the filter `eq` rules.
 */
export function removalPredicate(ctx: PatchContext, path: string, item: unknown): (stored: unknown) => boolean {
  const criteria = isPlainObject(item) ? Object.entries(item) : [['value', item] as const];
  if (criteria.length === 0) throw new ScimPatchError('invalidValue', `An empty object cannot select values of '${path}' to remove`);
  const tests = criteria.map(([name, expected]): ((stored: unknown) => boolean) => {
    if (expected === null || expected === undefined) return (stored) => isPlainObject(stored) && !isAssigned(getCi(stored, name));
    if (isCompValue(expected)) {
      const filter: FilterNode = { kind: 'compare', attrPath: makeAttrPath(undefined, name, undefined), op: 'eq', value: expected };
      return (stored) => matchesValueFilter(filter, stored, path, { caseExactAttributes: ctx.caseExact });
    }
    return (stored) => isPlainObject(stored) && deepEqual(getCi(stored, name), expected);
  });
  return (stored) => tests.every((test) => test(stored));
}

function isCompValue(value: unknown): value is CompValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
