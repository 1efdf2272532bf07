/**
 * SCIM v2 PATCH (RFC 7644 §3.5.2): `applyPatch(resource, operations, options)` returns the
 * patched copy or throws `ScimPatchError` with an RFC 7644 §3.12 `scimType`. Pure: no I/O.
 */
export { applyPatch, type PatchOperation } from './scim-patch.engine.js';
export { ScimPatchError } from './scim-patch.errors.js';
export { DEFAULT_PATCH_SCHEMA } from './scim-patch.schema.js';
