import type { FilterNode } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';

/**
 * Comparisons per list filter (issue 33, item 14; docs/product-rules.md, "SCIM"). A comparison on a
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
