/**
 * SCIM v2 filters (RFC 7644 §3.4.2.2): `parseFilter` → typed AST (`FilterNode`, discriminated by
 * `kind`), `matchesFilter` for in-memory evaluation, `formatFilter` to print it back. Pure: no I/O,
 * no framework.
 */
export * from './scim-filter.ast.js';
export { ScimFilterError } from './scim-filter.errors.js';
export { MAX_FILTER_LENGTH, parseFilter, parsePatchPath } from './scim-filter.parser.js';
export { formatFilter } from './scim-filter.format.js';
export { matchesFilter } from './scim-filter.matcher.js';
export { parseDateTime } from './scim-filter.datetime.js';
