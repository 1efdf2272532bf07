import { foldCase } from '../../common/text/case-fold.js';
import { GROUP_COLUMNS, MEMBER_USER_ID, memberExists } from '../../users/groups/group.queries.js';
import { parseDateTime } from '../filter/index.js';
import type { CompareNode, FilterNode, PresentNode } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';
import type { SqlFragment } from '../query/scim-filter.sql.js';
import { SqlComparisons, stringValue, unsupported } from '../query/scim-sql.comparisons.js';
import type { SqlDialect } from '../query/scim-sql.comparisons.js';
import { GROUP_SCHEMA } from '../scim.constants.js';

type GroupColumn = { kind: 'exact' | 'folded' | 'date'; column: string } | { kind: 'member' };

/** Filterable Group attributes (lower case) → columns; a Map, so `constructor` is no attribute. */
const COLUMNS = new Map<string, GroupColumn>([
  ['id', { kind: 'exact', column: GROUP_COLUMNS.id }],
  ['externalid', { kind: 'exact', column: GROUP_COLUMNS.externalId }],
  ['displayname', { kind: 'folded', column: GROUP_COLUMNS.displayNameKey }],
  ['meta.created', { kind: 'date', column: GROUP_COLUMNS.createdAt }],
  ['meta.lastmodified', { kind: 'date', column: GROUP_COLUMNS.changedAt }],
  ['members', { kind: 'member' }],
  ['members.value', { kind: 'member' }],
]);

const CORE_PREFIX = `${GROUP_SCHEMA.toLowerCase()}:`;

/**
 * A parsed filter (RFC 7644 §3.4.2.2) over `org_groups g`: `displayName` (compared ignoring case),
 * `externalId` and `id` (exactly), `meta.created`/`meta.lastModified`, and members by user id —
 * `members eq "…"`, `members.value eq "…"` or `members[value eq "…"]`, as Entra ID and Okta ask
 * whether a user is in a group.
 */
export function compileGroupFilter(filter: FilterNode, dialect: SqlDialect): SqlFragment {
  const compiler = new GroupFilterCompiler(dialect);
  return { sql: compiler.node(filter), params: compiler.params };
}

class GroupFilterCompiler extends SqlComparisons {
  node(filter: FilterNode): string {
    return this.logical(filter, (node) => {
      if (node.kind !== 'valuePath') return this.leaf(node, resolve(node.attrPath.path));
      if (strip(node.attrPath.path) !== 'members') throw unsupported(`value filters on "${node.attrPath.path}"`);
      return memberExists(this.memberFilter(node.filter));
    });
  }

  /** Inside `members[…]`: conditions on the member's `value`. */
  private memberFilter(filter: FilterNode): string {
    return this.logical(filter, (node) => {
      if (node.kind === 'valuePath') throw unsupported('nested value filters');
      if (node.attrPath.path !== 'value') throw unsupported(`"${node.attrPath.path}" inside members[…]`);
      return this.memberValue(node);
    });
  }

  private leaf(node: CompareNode | PresentNode, column: GroupColumn): string {
    if (column.kind === 'member') return memberExists(this.memberValue(node));
    if (node.kind === 'present') return column.kind === 'date' ? `${column.column} IS NOT NULL` : `(${column.column} IS NOT NULL AND ${column.column} <> '')`;
    if (node.value === null) return node.op === 'eq' ? `${column.column} IS NULL` : `${column.column} IS NOT NULL`;
    switch (column.kind) {
      case 'date': {
        const millis = typeof node.value === 'string' ? parseDateTime(node.value) : undefined;
        if (millis === undefined) throw ScimError.badRequest('invalidFilter', `${JSON.stringify(node.value)} is not a dateTime`);
        return this.ordered(column.column, node.op, millis, 'a dateTime');
      }
      case 'exact':
        return this.text(column.column, node.op, stringValue(node.value, node.attrPath), true);
      case 'folded':
        // The column holds foldCase(displayName) (src/common/text/case-fold.ts): compare folded values.
        return this.text(column.column, node.op, foldCase(stringValue(node.value, node.attrPath)), false);
    }
  }

  private memberValue(node: CompareNode | PresentNode): string {
    if (node.kind === 'present') return '1 = 1';
    if (node.value === null) throw unsupported('members compared with null');
    return this.text(MEMBER_USER_ID, node.op, stringValue(node.value, node.attrPath), true);
  }
}

function strip(path: string): string {
  return path.startsWith(CORE_PREFIX) ? path.slice(CORE_PREFIX.length) : path;
}

function resolve(path: string): GroupColumn {
  const column = COLUMNS.get(strip(path));
  if (!column) throw unsupported(`filtering Groups on "${path}"`);
  return column;
}
