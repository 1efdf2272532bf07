import type { FilterNode } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';

/**
 * Comparisons per list filter (docs/product-rules.md, "SCIM"). A comparison on a
 * multi-valued attribute (`emails[value co "…"]`) is a scan of every user's values; 40 of them at 100,000
 * users held SQLite's single thread for ten seconds. Provisioning clients send one or two (`userName eq`,
 * `externalId eq`, `members[value eq]`); ten leaves room for hand-written searches. BENCHMARKS.md
 * (`scim.filter-worst`) measures the costliest filter within the bound.
 */
export const MAX_FILTER_CLAUSES = 10;

/** The comparisons and presence tests of a filter, those inside value paths included. */
export function clauseCount(node: FilterNode): number {
  switch (node.kind) {
    case 'compare':
    case 'present':
      return 1;
    case 'and':
    case 'or':
      return clauseCount(node.left) + clauseCount(node.right);
    case 'not':
      return clauseCount(node.filter);
    case 'valuePath':
      return clauseCount(node.filter);
  }
}

/** 400 invalidFilter for a filter with more than MAX_FILTER_CLAUSES comparisons, before any SQL runs. */
export function assertFilterCost(filter: FilterNode): void {
  const clauses = clauseCount(filter);
  if (clauses > MAX_FILTER_CLAUSES) {
    throw ScimError.badRequest('invalidFilter', `the filter has ${clauses} comparisons; at most ${MAX_FILTER_CLAUSES} are allowed`);
  }
}

/**
 * Whether the filter's rows are found by an index: an `eq` on one of `indexed` (attribute paths, lower case),
 * alone or ANDed with anything. Such a filter reads a handful of rows (the provisioning clients' `userName eq`,
 * `externalId eq`); any other may scan the organization and runs as a bounded read
 * (src/common/database/bounded-reads.ts).
 */
export function servedByIndex(node: FilterNode, indexed: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case 'compare':
      return node.op === 'eq' && indexed.has(node.attrPath.path) && node.value !== null;
    case 'and':
      return servedByIndex(node.left, indexed) || servedByIndex(node.right, indexed);
    default:
      return false;
  }
}

/** The answer to a filter stopped at the read time limit: RFC 7644 §3.12 `tooMany`, 400. */
export function tooCostly(limitMs: number): ScimError {
  return ScimError.badRequest(
    'tooMany',
    `the filter took longer than ${limitMs} ms to evaluate and was stopped; narrow it (for example with userName or externalId eq)`,
  );
}
