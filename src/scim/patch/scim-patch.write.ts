import { isValidAttrName } from '../filter/scim-filter.attr-path.js';
import { matchesValueFilter } from '../filter/scim-filter.matcher.js';
import { deepEqual, findKeyCi, isPlainObject, toArray, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';
import { guardMutability } from './scim-patch.mutability.js';
import { removeAt } from './scim-patch.remove.js';
import { canonicalName, type PatchContext } from './scim-patch.schema.js';
import { attributeIn, attributeKey, scopeObject, type AttributeLocation, type PatchLocation } from './scim-patch.target.js';
import { elementFromFilter, enforceSinglePrimary, normalizeValue, setSubAttribute } from './scim-patch.values.js';

type WriteOp = 'add' | 'replace';

/** Applies an "add" or "replace" of `value` at `loc` (RFC 7644 §3.5.2.1 and §3.5.2.3). */
export function writeAt(ctx: PatchContext, resource: JsonObject, op: WriteOp, loc: PatchLocation, value: unknown): void {
  if (loc.kind === 'schema') {
    // A schema URN as the target: its value is a set of that schema's attributes.
    if (!isPlainObject(value)) {
      throw new ScimPatchError('invalidValue', `The value for '${loc.text}' must be an object of attributes`);
    }
    for (const [name, sub] of Object.entries(value)) {
      if (!isValidAttrName(name)) throw new ScimPatchError('invalidPath', `'${name}' in '${loc.text}' is not an attribute name`);
      writeAt(ctx, resource, op, attributeIn(loc.extension, name, `${loc.text}:${name}`), sub);
    }
    return;
  }
  if (value === null) {
    // RFC 7643 §2.5: null is "unassigned"; replacing with null removes the attribute.
    if (op === 'add') throw new ScimPatchError('invalidValue', `"add" of '${loc.text}' needs a value, not null`);
    removeAt(ctx, resource, loc, undefined);
    return;
  }
  if (guardMutability(ctx, resource, loc, value) === 'unchanged') return;
  const scope = scopeObject(ctx, resource, loc.extension, true) ?? resource;
  if (loc.filter !== undefined) writeFiltered(ctx, scope, op, loc, value);
  else if (loc.subAttribute !== undefined) writeSubAttribute(ctx, scope, loc, loc.subAttribute, value);
  else writeWhole(ctx, scope, op, loc, value);
}

function writeWhole(ctx: PatchContext, scope: JsonObject, op: WriteOp, loc: AttributeLocation, value: unknown): void {
  const path = attributeKey(loc);
  const key = findKeyCi(scope, loc.attribute) ?? canonicalName(ctx, loc.attribute);
  const current = scope[key];
  if (ctx.multiValued.has(path) || Array.isArray(current) || (current === undefined && Array.isArray(value))) {
    const items = toArray(normalizeValue(ctx, path, value));
    if (op === 'replace' || !Array.isArray(current)) {
      // §3.5.2.3: "If the target location is a multi-valued attribute and no filter is specified,
      // the attribute and all values are replaced."
      const list = items.filter((item, i) => items.findIndex((other) => deepEqual(other, item)) === i);
      enforceSinglePrimary(list, list, path);
      if (list.length === 0) delete scope[key];
      else scope[key] = list;
      return;
    }
    // §3.5.2.1: "If the target location specifies a multi-valued attribute, a new value is added
    // to the attribute." / "If the target location already contains the value specified, no
    // changes SHOULD be made to the resource".
    const written: unknown[] = [];
    for (const item of items) {
      const existing = current.find((stored) => deepEqual(stored, item));
      if (existing === undefined) current.push(item);
      written.push(existing ?? item);
    }
    enforceSinglePrimary(current, written, path);
    return;
  }
  if (isPlainObject(current) && isPlainObject(value)) {
    // Complex attribute: §3.5.2.1 "a set of sub-attributes SHALL be specified in the "value"
    // parameter"; §3.5.2.3 "Sub-attributes that are not specified in the "value" parameter are
    // left unchanged."
    for (const [name, sub] of Object.entries(value)) setSubAttribute(ctx, current, path, name, sub);
    if (Object.keys(current).length === 0) delete scope[key];
    return;
  }
  // §3.5.2.1: "If the target location specifies a single-valued attribute, the existing value is replaced."
  scope[key] = normalizeValue(ctx, path, value);
}

/** `name.givenName`, or `emails.value` (no filter: applies to every value). */
function writeSubAttribute(ctx: PatchContext, scope: JsonObject, loc: AttributeLocation, sub: string, value: unknown): void {
  const path = attributeKey(loc);
  const key = findKeyCi(scope, loc.attribute) ?? canonicalName(ctx, loc.attribute);
  const current = scope[key];
  const multiValued = ctx.multiValued.has(path) || Array.isArray(current);
  if (current === undefined || current === null || (Array.isArray(current) && current.length === 0)) {
    // §3.5.2.1: "If the target location does not exist, the attribute and value are added."
    const element: JsonObject = {};
    setSubAttribute(ctx, element, path, sub, value);
    scope[key] = multiValued ? [element] : element;
    return;
  }
  if (Array.isArray(current)) {
    for (const element of current) {
      if (!isPlainObject(element)) throw new ScimPatchError('invalidPath', `'${loc.attribute}' has no sub-attributes ('${loc.text}')`);
      setSubAttribute(ctx, element, path, sub, value);
    }
    if (sub.toLowerCase() === 'primary') enforceSinglePrimary(current, current, path);
    return;
  }
  if (!isPlainObject(current)) {
    throw new ScimPatchError('invalidPath', `'${loc.attribute}' is not a complex attribute, so '${loc.text}' does not exist`);
  }
  setSubAttribute(ctx, current, path, sub, value);
}

/** `emails[type eq "work"]` or `emails[type eq "work"].value`. */
function writeFiltered(ctx: PatchContext, scope: JsonObject, op: WriteOp, loc: AttributeLocation, value: unknown): void {
  const filter = loc.filter;
  if (filter === undefined) return;
  const path = attributeKey(loc);
  const key = findKeyCi(scope, loc.attribute) ?? canonicalName(ctx, loc.attribute);
  const current = scope[key];
  if (current !== undefined && current !== null && !Array.isArray(current)) {
    throw new ScimPatchError('invalidPath', `'${loc.attribute}' is single-valued, so the value filter in '${loc.text}' cannot apply`);
  }
  const list: unknown[] = Array.isArray(current) ? current : [];
  const matched = list.filter((el) => matchesValueFilter(filter, el, path, { caseExactAttributes: ctx.caseExact }));
  const sub = loc.filterSubAttribute;

  if (matched.length === 0) {
    // §3.5.2.3: "If the target location is a multi-valued attribute for which a value selection
    // filter ("valuePath") has been supplied and no record match was made, the service provider
    // SHALL indicate failure by returning … "noTarget"." Microsoft Entra ID instead expects
    // `emails[type eq "work"].value` to create the work email, so by default we create it.
    const base = ctx.createOnFilterMiss ? elementFromFilter(ctx, filter) : undefined;
    if (base === undefined) {
      const why = ctx.createOnFilterMiss ? "; a value can only be created from 'eq' comparisons joined by 'and'" : '';
      throw new ScimPatchError('noTarget', `The filter in '${loc.text}' matched no value${why}`);
    }
    const element = normalizeValue(ctx, path, base) as JsonObject;
    if (sub !== undefined) setSubAttribute(ctx, element, path, sub, value);
    else if (isPlainObject(value)) for (const [name, v] of Object.entries(value)) setSubAttribute(ctx, element, path, name, v);
    else throw new ScimPatchError('invalidValue', `The value for '${loc.text}' must be an object of sub-attributes`);
    list.push(element);
    scope[key] = list;
    enforceSinglePrimary(list, [element], path);
    return;
  }

  const written: unknown[] = [];
  for (const element of matched) {
    const index = list.indexOf(element);
    if (sub !== undefined) {
      // §3.5.2.3: "the matching sub-attribute of all matching records is replaced."
      if (!isPlainObject(element)) throw new ScimPatchError('invalidPath', `Values of '${loc.attribute}' have no sub-attributes`);
      setSubAttribute(ctx, element, path, sub, value);
      written.push(element);
    } else if (op === 'replace' || !isPlainObject(element)) {
      // §3.5.2.3: "all matching record values SHALL be replaced."
      if (isPlainObject(element) && !isPlainObject(value)) {
        throw new ScimPatchError('invalidValue', `The value for '${loc.text}' must be an object of sub-attributes`);
      }
      list[index] = normalizeValue(ctx, path, value);
      written.push(list[index]);
    } else {
      // "add" to a matched complex value adds or replaces the given sub-attributes.
      if (!isPlainObject(value)) throw new ScimPatchError('invalidValue', `The value for '${loc.text}' must be an object of sub-attributes`);
      for (const [name, v] of Object.entries(value)) setSubAttribute(ctx, element, path, name, v);
      written.push(element);
    }
  }
  enforceSinglePrimary(list, written, path);
}
