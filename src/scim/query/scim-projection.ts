import type { JsonObject, JsonValue } from '../../common/database/columns.js';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from '../scim.constants.js';

/** Attribute paths as [attribute, sub?], lower case; an extension attribute as [urn, attribute, sub?]. */
type Path = string[];

export interface AttributeSelection {
  attributes: Path[] | undefined;
  excluded: Path[];
}

/** Returned always (RFC 7643 §3.1 `id`, §3 `schemas`), whatever `attributes`/`excludedAttributes` say. */
const ALWAYS = new Set(['id', 'schemas']);
/** `returned: request` (user.schema.ts): only when named in `attributes`. */
const ON_REQUEST = new Set(['usertype']);

/** Neither `attributes` nor `excludedAttributes`: what almost every request asks, one value for all of them. */
const DEFAULT_SELECTION: AttributeSelection = Object.freeze({ attributes: undefined, excluded: Object.freeze([]) as unknown as Path[] });

/** Parses `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5): comma-separated attribute paths. */
export function parseAttributeList(attributes: string | undefined, excluded: string | undefined): AttributeSelection {
  if ((attributes === undefined || attributes.trim() === '') && (excluded === undefined || excluded.trim() === '')) return DEFAULT_SELECTION;
  return { attributes: attributes === undefined || attributes.trim() === '' ? undefined : paths(attributes), excluded: paths(excluded ?? '') };
}

function paths(list: string): Path[] {
  return (
    list
      .split(',')
      .map((p) => p.trim().toLowerCase())
      .filter((p) => p !== '')
      // A value filter (`emails[type eq "work"]`) selects the whole attribute.
      .map((p) => p.replace(/\[.*\]/, ''))
      .map(toPath)
  );
}

function toPath(text: string): Path {
  const ext = ENTERPRISE_SCHEMA.toLowerCase();
  if (text === ext) return [ext];
  if (text.startsWith(`${ext}:`)) return [ext, ...text.slice(ext.length + 1).split('.')];
  const core = [USER_SCHEMA, GROUP_SCHEMA].map((s) => `${s.toLowerCase()}:`).find((prefix) => text.startsWith(prefix));
  return (core ? text.slice(core.length) : text).split('.');
}

/** Whether the selection returns the top-level attribute `name` (lower case), so that it must be read. */
export function selectsAttribute(selection: AttributeSelection, name: string): boolean {
  if (selection.attributes) return selection.attributes.some((path) => path[0] === name);
  return !selection.excluded.some((path) => path[0] === name && path.length === 1);
}

/**
 * Applies the selection to a full resource: a new object, or the resource itself when the selection is
 * the default and it holds no attribute returned only on request (nothing to leave out, nothing to copy).
 */
export function project(resource: JsonObject, selection: AttributeSelection): JsonObject {
  if (selection.attributes === undefined && selection.excluded.length === 0 && !Object.keys(resource).some((key) => ON_REQUEST.has(key.toLowerCase())))
    return resource;
  if (selection.attributes) {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(resource)) if (ALWAYS.has(key.toLowerCase())) out[key] = value;
    for (const path of selection.attributes) copyPath(resource, out, path);
    return out;
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(resource)) if (!ON_REQUEST.has(key.toLowerCase())) out[key] = value;
  for (const path of selection.excluded) if (!ALWAYS.has(path[0])) removePath(out, path);
  return out;
}

function keyOf(obj: JsonObject, name: string): string | undefined {
  return Object.keys(obj).find((k) => k.toLowerCase() === name);
}

function copyPath(from: JsonObject, to: JsonObject, path: Path): void {
  const key = keyOf(from, path[0]);
  if (key === undefined) return;
  const value = from[key];
  if (path.length === 1) {
    to[key] = value;
    return;
  }
  const rest = path.slice(1);
  // A sub-attribute the values do not have selects nothing: no empty `name: {}` or `emails: [{}]`.
  if (Array.isArray(value)) {
    const existing = Array.isArray(to[key]) ? (to[key] as JsonValue[]) : value.map(() => ({}) as JsonObject);
    value.forEach((element, i) => {
      if (element && typeof element === 'object' && !Array.isArray(element)) copyPath(element, existing[i] as JsonObject, rest);
    });
    if (existing.some((e) => e && typeof e === 'object' && Object.keys(e).length > 0)) to[key] = existing;
  } else if (value && typeof value === 'object') {
    const target = (to[key] && typeof to[key] === 'object' ? to[key] : {}) as JsonObject;
    copyPath(value, target, rest);
    if (Object.keys(target).length > 0) to[key] = target;
  }
}

function removePath(obj: JsonObject, path: Path): void {
  const key = keyOf(obj, path[0]);
  if (key === undefined) return;
  if (path.length === 1) {
    delete obj[key];
    return;
  }
  const value = obj[key];
  const rest = path.slice(1);
  if (Array.isArray(value)) {
    obj[key] = value.map((e) => {
      if (!e || typeof e !== 'object' || Array.isArray(e)) return e;
      const copy = { ...e };
      removePath(copy, rest);
      return copy;
    });
  } else if (value && typeof value === 'object') {
    const copy = { ...value };
    removePath(copy, rest);
    obj[key] = copy;
  }
}
