import { isPlainObject, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';

/**
 * The lengths of the resource's multi-valued attributes (core, and one level inside extension objects),
 * keyed by their lower-cased path. Read before and after each operation (scim-patch.engine.ts).
 */
export function valueCounts(resource: JsonObject): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [key, value] of Object.entries(resource)) {
    if (Array.isArray(value)) counts.set(key.toLowerCase(), value.length);
    else if (isPlainObject(value) && key.includes(':')) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (Array.isArray(innerValue)) counts.set(`${key}:${inner}`.toLowerCase(), innerValue.length);
      }
    }
  }
  return counts;
}

/**
 * An operation may not grow a multi-valued attribute past `max` values (docs/product-rules.md, "SCIM"):
 * it bounds the work of every later operation of the request, each at most linear in the values. A
 * resource stored with more before the bound (none is accepted since) may still shrink.
 */
export function assertWithinValueBound(before: Map<string, number>, after: Map<string, number>, max: number): void {
  for (const [path, count] of after) {
    if (count > max && count > (before.get(path) ?? 0)) {
      throw new ScimPatchError('invalidValue', `'${path}' may hold at most ${max} values; this operation would leave ${count}`);
    }
  }
}
