/**
 * Small helpers for JSON-shaped SCIM resources. RFC 7643 §2.1: "Attribute names are
 * case insensitive", so every key lookup here ignores case.
 */

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Any object that is not an array or a Date: plain JSON objects, but also class instances such as
 * ORM entities, so the matcher can read them. (The PATCH engine requires plain JSON objects.)
 */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The key of `obj` equal to `name` ignoring case (an exact match wins), or `undefined`. */
export function findKeyCi(obj: JsonObject, name: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(obj, name)) return name;
  const lower = name.toLowerCase();
  return Object.keys(obj).find((k) => k.toLowerCase() === lower);
}

export function getCi(obj: JsonObject, name: string): unknown {
  const key = findKeyCi(obj, name);
  return key === undefined ? undefined : obj[key];
}

/** `undefined` → `[]`, an array → itself, anything else → `[value]`. */
export function toArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * RFC 7643 §2.5: "Unassigned attributes, the null value, or empty array (in the case of a
 * multi-valued attribute) SHALL be considered to be equivalent in 'state'." An empty string or a
 * complex value without any assigned sub-attribute is likewise not present (RFC 7644 "pr").
 */
export function isAssigned(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(isAssigned);
  if (isRecord(value)) return Object.values(value).some(isAssigned);
  return true;
}

/** Structural equality for JSON values (object key order ignored, key case significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
