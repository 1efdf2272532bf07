import { findKeyCi, getCi, isPlainObject, type JsonObject } from '../filter/scim-filter.objects.js';
import { ScimPatchError } from './scim-patch.errors.js';
import { assertWithinValueBound, valueCounts } from './scim-patch.bounds.js';
import { removeAt } from './scim-patch.remove.js';
import { createPatchContext, type ApplyPatchOptions, type PatchContext } from './scim-patch.schema.js';
import { resolvePath } from './scim-patch.target.js';
import { writeAt } from './scim-patch.write.js';

/** One element of a PatchOp request's `Operations` (RFC 7644 §3.5.2). `op` is matched ignoring case. */
export interface PatchOperation {
  readonly op: string;
  readonly path?: string;
  readonly value?: unknown;
}

type OpName = 'add' | 'remove' | 'replace';

interface ReadOperation {
  readonly op: OpName;
  readonly path: string | undefined;
  readonly hasValue: boolean;
  readonly value: unknown;
}

/**
 * Applies PATCH operations in order and returns the patched copy; `resource` is not modified.
 * Any failure throws `ScimPatchError` (naming the operation index) and nothing is applied:
 * RFC 7644 §3.5.2: "If an error occurs … the original resource MUST be restored".
 */
export function applyPatch(resource: Record<string, unknown>, operations: readonly PatchOperation[], options: ApplyPatchOptions = {}): Record<string, unknown> {
  if (!isPlainObject(resource)) throw new ScimPatchError('invalidSyntax', 'The resource to patch must be a JSON object');
  // §3.5.2: "The body of an HTTP PATCH request MUST contain the attribute "Operations", whose
  // value is an array of one or more PATCH operations."
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimPatchError('invalidSyntax', '"Operations" must be an array of one or more PATCH operations');
  }
  const ctx = createPatchContext(options);
  const result = structuredClone(resource);
  let counts = options.maxValuesPerAttribute === undefined ? undefined : valueCounts(result);
  operations.forEach((raw: unknown, index) => {
    try {
      const operation = readOperation(raw);
      const max = options.maxValuesPerAttribute;
      if (max !== undefined && Array.isArray(operation.value) && operation.value.length > max) {
        throw new ScimPatchError('invalidValue', `"value" may list at most ${max} values; got ${operation.value.length}`);
      }
      applyOperation(ctx, result, operation);
      if (counts !== undefined) {
        const after = valueCounts(result);
        assertWithinValueBound(counts, after, options.maxValuesPerAttribute!);
        counts = after;
      }
    } catch (e) {
      throw e instanceof ScimPatchError ? e.atOperation(index) : e;
    }
  });
  syncExtensionSchemas(ctx, result);
  return result;
}

function readOperation(raw: unknown): ReadOperation {
  if (!isPlainObject(raw)) throw new ScimPatchError('invalidSyntax', 'Each PATCH operation must be a JSON object');
  // §3.5.2: "Each PATCH operation object MUST have exactly one "op" member, whose value
  // indicates the operation to perform and MAY be one of "add", "remove", or "replace"."
  const op = getCi(raw, 'op');
  const name = typeof op === 'string' ? op.toLowerCase() : undefined;
  if (name !== 'add' && name !== 'remove' && name !== 'replace') {
    throw new ScimPatchError('invalidSyntax', `"op" must be "add", "remove" or "replace" (any case); got ${JSON.stringify(op)}`);
  }
  const path = getCi(raw, 'path');
  if (path !== undefined && path !== null && typeof path !== 'string') {
    throw new ScimPatchError('invalidPath', `"path" must be a string; got ${JSON.stringify(path)}`);
  }
  const valueKey = findKeyCi(raw, 'value');
  return {
    op: name,
    path: typeof path === 'string' && path.trim() !== '' ? path.trim() : undefined,
    hasValue: valueKey !== undefined,
    value: valueKey === undefined ? undefined : raw[valueKey],
  };
}

function applyOperation(ctx: PatchContext, resource: JsonObject, operation: ReadOperation): void {
  const { op, path, value } = operation;
  if (op === 'remove') {
    // §3.5.2.2: "If "path" is unspecified, the operation fails with HTTP status code 400 and a
    // "scimType" error code of "noTarget"."
    if (path === undefined) throw new ScimPatchError('noTarget', '"remove" requires a "path"');
    removeAt(ctx, resource, resolvePath(ctx, resource, path), value);
    return;
  }
  // §3.5.2.1: "The operation MUST contain a "value" member whose content specifies the value to be added."
  if (!operation.hasValue) throw new ScimPatchError('invalidValue', `"${op}" requires a "value"`);
  if (path !== undefined) {
    writeAt(ctx, resource, op, resolvePath(ctx, resource, path), value);
    return;
  }
  // §3.5.2.1: "If omitted, the target location is assumed to be the resource itself. The "value"
  // parameter contains a set of attributes to be added to the resource." (§3.5.2.3 likewise.)
  // Keys may be attribute names, dotted (`name.givenName`) or URN-qualified paths, or extension URNs.
  if (!isPlainObject(value)) {
    throw new ScimPatchError('invalidValue', `"${op}" without a "path" needs an object value of attributes`);
  }
  for (const [key, sub] of Object.entries(value)) {
    writeAt(ctx, resource, op, resolvePath(ctx, resource, key), sub);
  }
}

/**
 * RFC 7643 §3: "schemas" lists the schema URIs "that define the attributes present in the
 * current JSON structure". Extensions that gained attributes are added to it, extensions left
 * empty are removed from the resource and from it.
 */
function syncExtensionSchemas(ctx: PatchContext, resource: JsonObject): void {
  const schemasKey = findKeyCi(resource, 'schemas');
  const schemas = schemasKey === undefined ? undefined : resource[schemasKey];
  for (const extension of ctx.touchedExtensions) {
    const key = findKeyCi(resource, extension);
    const object = key === undefined ? undefined : resource[key];
    const present = isPlainObject(object) && Object.keys(object).length > 0;
    if (key !== undefined && isPlainObject(object) && !present) delete resource[key];
    if (!Array.isArray(schemas)) continue;
    const index = schemas.findIndex((s) => typeof s === 'string' && s.toLowerCase() === extension.toLowerCase());
    if (present && index < 0) schemas.push(extension);
    if (!present && index >= 0) schemas.splice(index, 1);
  }
}
