import { matchesValueFilter } from '../filter/scim-filter.matcher.js';
import { findKeyCi, isPlainObject, toArray, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';
import { guardMutability } from './scim-patch.mutability.js';
import type { PatchContext } from './scim-patch.schema.js';
import { attributeKey, scopeObject, type PatchLocation } from './scim-patch.target.js';
import { removalPredicate } from './scim-patch.values.js';

/**
 * Applies a "remove" at `loc` (RFC 7644 §3.5.2.2). Removing something that is already
 * unassigned, or a filter that matches nothing, changes nothing and is not an error.
 * `value` (not in RFC 7644) selects the values of a multi-valued attribute to remove, as
 * Microsoft Entra ID sends for group members.
 */
export function removeAt(ctx: PatchContext, resource: JsonObject, loc: PatchLocation, value: unknown): void {
  if (loc.kind === 'schema') {
    if (loc.extension === undefined) throw new ScimPatchError('invalidPath', `The core schema '${loc.text}' cannot be removed`);
    const key = findKeyCi(resource, loc.extension);
    if (key !== undefined) delete resource[key];
    ctx.touchedExtensions.add(key ?? loc.extension);
    return;
  }
  const path = attributeKey(loc);
  guardMutability(ctx, resource, loc, undefined);
  const whole = loc.subAttribute === undefined && loc.filter === undefined && value === undefined;
  if (whole && ctx.required.has(path)) {
    // §3.5.2.2: "If an attribute is removed or becomes unassigned and is defined as a required
    // attribute or a read-only attribute, the server SHALL return … "mutability"."
    throw new ScimPatchError('mutability', `Attribute '${loc.text}' is required and cannot be removed`);
  }
  const scope = scopeObject(ctx, resource, loc.extension, false);
  const key = scope === undefined ? undefined : findKeyCi(scope, loc.attribute);
  if (scope === undefined || key === undefined) return;
  const current = scope[key];

  if (loc.filter !== undefined) {
    // §3.5.2.2: "If the target location is a complex multi-valued attribute and a complex filter
    // is specified based on the attribute's sub-attributes, the matching records are removed."
    if (!Array.isArray(current)) {
      throw new ScimPatchError('invalidPath', `'${loc.attribute}' is single-valued, so the value filter in '${loc.text}' cannot apply`);
    }
    const filter = loc.filter;
    // A Set: one pass each, linear in the values.
    const matched = new Set(current.filter((el) => matchesValueFilter(filter, el, path, { caseExactAttributes: ctx.caseExact })));
    const sub = loc.filterSubAttribute;
    if (sub === undefined) scope[key] = current.filter((el) => !matched.has(el));
    else for (const el of matched) deleteSub(el, sub);
  } else if (loc.subAttribute !== undefined) {
    const sub = loc.subAttribute;
    if (!isPlainObject(current) && !Array.isArray(current)) {
      throw new ScimPatchError('invalidPath', `'${loc.attribute}' is not a complex attribute, so '${loc.text}' does not exist`);
    }
    for (const el of toArray(current)) deleteSub(el, sub);
  } else if (value !== undefined) {
    const predicates = toArray(value).map((item) => removalPredicate(ctx, path, item));
    const selected = (el: unknown): boolean => predicates.some((p) => p(el));
    if (Array.isArray(current)) scope[key] = current.filter((el) => !selected(el));
    else if (selected(current)) delete scope[key];
  } else {
    // §3.5.2.2: "If the target location is a single-value attribute, the attribute and its
    // associated value is removed"; for a multi-valued one "the attribute and all values are removed".
    delete scope[key];
  }
  pruneEmpty(scope, key);
  if (loc.extension !== undefined && Object.keys(scope).length === 0) {
    const extensionKey = findKeyCi(resource, loc.extension);
    if (extensionKey !== undefined) delete resource[extensionKey];
  }
}

function deleteSub(element: unknown, sub: string): void {
  if (!isPlainObject(element)) return;
  const key = findKeyCi(element, sub);
  if (key !== undefined) delete element[key];
}

/**
 * §3.5.2.2: "If no other values remain after removal of the selected values, the multi-valued
 * attribute SHALL be considered unassigned." Values left with no sub-attributes go as well.
 */
function pruneEmpty(scope: JsonObject, key: string): void {
  const value = scope[key];
  if (Array.isArray(value)) {
    const kept = value.filter((el) => !(isPlainObject(el) && Object.keys(el).length === 0));
    if (kept.length === 0) delete scope[key];
    else scope[key] = kept;
  } else if (isPlainObject(value) && Object.keys(value).length === 0) {
    delete scope[key];
  }
}
