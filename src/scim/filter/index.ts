/**
 * SCIM v2 filters (RFC 7644 §3.4.2.2): `parseFilter` → typed AST (`FilterNode`, discriminated by
 * `kind`), `matchesFilter` for in-memory evaluation, `formatFilter` to print it back, and
 * `parsePatchPath` for PATCH `path` values (RFC 7644 §3.5.2). Pure: no I/O, no framework.
 */
export * from './scim-filter.ast.js';
export { ScimFilterError, type ScimFilterErrorType } from './scim-filter.errors.js';
export { MAX_FILTER_LENGTH, parseFilter, parsePatchPath, type ParseFilterOptions } from './scim-filter.parser.js';
export { formatFilter, formatPatchPath } from './scim-filter.format.js';
export {
  DEFAULT_CASE_EXACT_ATTRIBUTES,
  matchesFilter,
  matchesValueFilter,
  resolveValues,
  type MatchOptions,
} from './scim-filter.matcher.js';
export { AttributePathSet } from './scim-attribute-set.js';
export { parseDateTime } from './scim-filter.datetime.js';
