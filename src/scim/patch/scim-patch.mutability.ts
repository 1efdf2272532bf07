import { deepEqual, getCi, toArray, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';
import type { PatchContext } from './scim-patch.schema.js';
import { attributeKey, scopeObject, type AttributeLocation } from './scim-patch.target.js';

/**
 * RFC 7644 §3.5.2: "Each operation against an attribute MUST be compatible with the attribute's
 * mutability … a client MUST NOT modify an attribute that has mutability "readOnly"".
 * Writing a read-only attribute's current value again is not a modification and is ignored
 * ('unchanged'), so clients that echo `id` or `schemas` in a path-less value still succeed.
 * `schemas` is maintained by the engine, so a write listing only known schema URNs is ignored too.
 * `value` is `undefined` for a removal.
 */
export function guardMutability(ctx: PatchContext, resource: JsonObject, loc: AttributeLocation, value: unknown): 'writable' | 'unchanged' {
  const key = attributeKey(loc);
  if (!ctx.readOnly.has(key)) return 'writable';
  if (value !== undefined && loc.subAttribute === undefined && loc.filter === undefined) {
    const scope = scopeObject(ctx, resource, loc.extension, false);
    if (deepEqual(scope === undefined ? undefined : getCi(scope, loc.attribute), value)) return 'unchanged';
    if (key === 'schemas' && toArray(value).every((urn) => isKnownSchema(ctx, urn))) return 'unchanged';
  }
  const action = value === undefined ? 'removed' : 'modified';
  throw new ScimPatchError('mutability', `Attribute '${loc.text}' is read-only and cannot be ${action}`);
}

function isKnownSchema(ctx: PatchContext, urn: unknown): boolean {
  if (typeof urn !== 'string') return false;
  const lower = urn.toLowerCase();
  return [...ctx.coreSchemas, ...ctx.extensionSchemas].some((s) => s.toLowerCase() === lower);
}
