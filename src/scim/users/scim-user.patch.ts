import type { JsonObject } from '../../common/database/columns.js';
import { DEFAULT_PATCH_SCHEMA, applyPatch } from '../patch/index.js';
import type { PatchOperation } from '../patch/index.js';
import { ScimError } from '../errors/scim-error.js';
import { refuseCaseVariantKeys } from '../schema/case-variant-keys.js';
import { MAX_ATTRIBUTE_VALUES, MAX_PATCH_OPERATIONS, PATCH_OP_SCHEMA } from '../scim.constants.js';
import { validateUser } from './scim-user.validator.js';
import type { ValidUser } from './scim-user.validator.js';

/**
 * Reads a PatchOp body (RFC 7644 §3.5.2): "The body of each request MUST contain the "schemas"
 * attribute with the URI value of "urn:ietf:params:scim:api:messages:2.0:PatchOp"", and an
 * "Operations" array. Keys are matched ignoring case (Entra ID sends "Operations", others "operations").
 */
export function readPatchRequest(body: unknown): PatchOperation[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ScimError.badRequest('invalidSyntax', 'the body must be a PatchOp object');
  const entries = Object.entries(body);
  const schemas = entries.find(([k]) => k.toLowerCase() === 'schemas')?.[1];
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase())) {
    throw ScimError.badRequest('invalidSyntax', `"schemas" must be ["${PATCH_OP_SCHEMA}"]`);
  }
  const operations = entries.find(([k]) => k.toLowerCase() === 'operations')?.[1];
  if (!Array.isArray(operations) || operations.length === 0) {
    throw ScimError.badRequest('invalidSyntax', '"Operations" must be an array of one or more PATCH operations');
  }
  if (operations.length > MAX_PATCH_OPERATIONS) {
    throw ScimError.badRequest(
      'invalidValue',
      `a PATCH request may carry at most ${MAX_PATCH_OPERATIONS} operations (ServiceProviderConfig patch.maxOperations); got ${operations.length}`,
    );
  }
  // A value's keys are checked here: applied to the user, "userName" and "username" would merge into one.
  refuseCaseVariantKeys(operations);
  return operations as PatchOperation[];
}

const USER_PATCH_SCHEMA = { requiredAttributes: [...DEFAULT_PATCH_SCHEMA.requiredAttributes, 'active'], maxValuesPerAttribute: MAX_ATTRIBUTE_VALUES };

/** Applies the operations to the user's current representation and validates the result as a whole. */
export function patchUser(current: JsonObject, operations: PatchOperation[]): ValidUser {
  // Filters in paths follow the strict grammar, as list filters do (a string value is quoted). A written
  // `password` stays in the result as plain text; validateUser takes it out, and the domain hashes it.
  // `active` cannot be removed: a user is active or not, and an ignored removal would answer 204 for nothing.
  const patched = applyPatch(current, operations, USER_PATCH_SCHEMA);
  keepOnePrimary(current, patched);
  return validateUser(patched);
}

/**
 * RFC 7644 §3.5.2: "a PATCH operation that sets a value's "primary" sub-attribute to "true" SHALL
 * cause the server to automatically set "primary" to "false" for any other values in the array."
 * The value that became primary in this request wins.
 */
function keepOnePrimary(before: JsonObject, after: Record<string, unknown>): void {
  for (const [key, values] of Object.entries(after)) {
    if (!Array.isArray(values)) continue;
    const primaries = values.filter((v) => isPrimary(v));
    if (primaries.length < 2) continue;
    const previous = Object.entries(before).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
    const wasPrimary = (v: unknown) => Array.isArray(previous) && previous.some((p) => isPrimary(p) && JSON.stringify(p) === JSON.stringify(v));
    const winner = primaries.find((v) => !wasPrimary(v)) ?? primaries[primaries.length - 1];
    for (const v of primaries) if (v !== winner) (v as Record<string, unknown>).primary = false;
  }
}

function isPrimary(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.entries(value).some(([k, v]) => k.toLowerCase() === 'primary' && (v === true || v === 'True' || v === 'true'))
  );
}
