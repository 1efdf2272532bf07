import type { JsonObject, JsonValue } from '../../common/database/columns.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { ScimError } from '../errors/scim-error.js';
import { MAX_ATTRIBUTE_VALUES } from '../scim.constants.js';
import type { ScimAttribute } from './scim-attribute.js';

/**
 * Checks one JSON object against attribute definitions and returns it with the schema's spelling of
 * every key (RFC 7643 §2.1: "Attribute names are case insensitive"). Rules, per RFC 7643 §2:
 * - `null` and `[]` mean unassigned (RFC 7643 §2.5) and are dropped;
 * - readOnly attributes are ignored (RFC 7644 §3.3: "…SHALL be ignored");
 * - an attribute the schema does not define is refused (invalidSyntax): silently dropping it would
 *   report success for data that was never stored;
 * - a type mismatch is refused (invalidValue); the strings "True"/"False" are accepted for booleans
 *   (Microsoft Entra ID sends them);
 * - in a multi-valued attribute, `primary: true` appears at most once (RFC 7643 §2.4);
 * - a string longer than its bound (`bounds`, by path without indices: scim-bounds.ts) is refused
 *   (invalidValue) before anything is stored, alike on SQLite and MariaDB.
 */
export function validateAttributes(
  input: Record<string, unknown>,
  definitions: readonly ScimAttribute[],
  where: string,
  bounds: Bounds,
  boundPrefix = '',
): JsonObject {
  const byName = new Map(definitions.map((d) => [d.name.toLowerCase(), d]));
  const out: JsonObject = {};
  for (const [key, raw] of Object.entries(input)) {
    const def = byName.get(key.toLowerCase());
    if (!def) throw ScimError.badRequest('invalidSyntax', `${where}"${key}" is not an attribute of the schema`);
    if (def.mutability === 'readOnly') continue;
    const value = validateValue(raw, def, `${where}${def.name}`, { bounds, path: `${boundPrefix}${def.name}` });
    if (value !== undefined) out[def.name] = value;
  }
  return out;
}

/** The bounds of a schema's strings, and the path of the attribute being checked in them. */
type Bounds = ReadonlyMap<string, number>;
interface BoundAt {
  bounds: Bounds;
  path: string;
}

function validateValue(raw: unknown, def: ScimAttribute, path: string, at: BoundAt): JsonValue | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (!def.multiValued) return validateSingle(raw, def, path, at);
  if (!Array.isArray(raw)) throw ScimError.badRequest('invalidValue', `"${path}" must be an array`);
  if (raw.length > MAX_ATTRIBUTE_VALUES)
    throw ScimError.badRequest(
      'invalidValue',
      `"${path}" may hold at most ${MAX_ATTRIBUTE_VALUES} values (ServiceProviderConfig patch.maxValuesPerAttribute); got ${raw.length}`,
    );
  const values = raw.map((v, i) => validateSingle(v, def, `${path}[${i}]`, at)).filter((v): v is JsonValue => v !== undefined);
  if (values.length === 0) return undefined;
  const primaries = values.filter((v) => typeof v === 'object' && v !== null && (v as JsonObject).primary === true).length;
  if (primaries > 1) throw ScimError.badRequest('invalidValue', `"${path}" has ${primaries} values with primary true; at most one is allowed`);
  return values;
}

function validateSingle(raw: unknown, def: ScimAttribute, path: string, at: BoundAt): JsonValue | undefined {
  if (raw === null || raw === undefined) return undefined;
  switch (def.type) {
    case 'complex': {
      if (typeof raw !== 'object' || Array.isArray(raw)) throw ScimError.badRequest('invalidValue', `"${path}" must be an object`);
      const value = validateAttributes(raw as Record<string, unknown>, def.subAttributes ?? [], `${path}.`, at.bounds, `${at.path}.`);
      return Object.keys(value).length === 0 ? undefined : value;
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string' && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
      throw ScimError.badRequest('invalidValue', `"${path}" must be a boolean`);
    case 'integer':
      if (Number.isInteger(raw)) return raw as number;
      throw ScimError.badRequest('invalidValue', `"${path}" must be an integer`);
    case 'decimal':
      if (typeof raw === 'number') return raw;
      throw ScimError.badRequest('invalidValue', `"${path}" must be a number`);
    default:
      if (typeof raw !== 'string') throw ScimError.badRequest('invalidValue', `"${path}" must be a string`);
      // U+0000 ends strings in C (SQLite's LIKE among them); no attribute value needs it.
      if (raw.includes('\u0000')) throw ScimError.badRequest('invalidValue', `"${path}" must not contain U+0000`);
      return bounded(raw, path, at);
  }
}

function bounded(value: string, path: string, { bounds, path: boundPath }: BoundAt): string {
  const bound = bounds.get(boundPath);
  // Every writable string has a bound (scim-bounds.ts derives them from the schema); none is a bug, not a 400.
  if (bound === undefined) throw new Error(`no length bound for the SCIM attribute ${boundPath}`);
  if (tooLong(value, bound)) throw ScimError.badRequest('invalidValue', `"${path}" must be at most ${bound} characters`);
  return value;
}
