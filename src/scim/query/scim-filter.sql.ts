import { parseDateTime } from '../filter/index.js';
import type { AttrPath, CompareNode, FilterNode, PresentNode } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';
import { CONTACT_COLUMNS, CONTACT_TABLE, USER_COLUMNS } from '../../users/queries/user-columns.js';
import type { UserColumn } from '../../users/queries/user-columns.js';
import { SqlComparisons, stringValue, unsupported } from './scim-sql.comparisons.js';
import type { SqlDialect } from './scim-sql.comparisons.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { activeUserSql, notActiveUserSql } from '../../users/rules/user-state.js';

/** A WHERE fragment over `users u` with named parameters (`:f0`, `:f1`, …). Never string-built values. */
export interface SqlFragment {
  sql: string;
  params: Record<string, unknown>;
}

type Column =
  /** Text compared ignoring case (RFC 7643 §2.2 caseExact false); `lowered`: the column already is. */
  | { kind: 'text'; column: string; lowered: boolean }
  /** Text compared exactly (caseExact true: id, externalId). */
  | { kind: 'exact'; column: string }
  | { kind: 'date'; column: string }
  | { kind: 'active' }
  /** A sub-attribute of the user's e-mails or phone numbers, in `user_contacts`. */
  | { kind: 'contact'; contact: 'email' | 'phone'; field: ContactField };

type ContactField = typeof CONTACT_COLUMNS.valueLower | typeof CONTACT_COLUMNS.typeLower | typeof CONTACT_COLUMNS.isPrimary;

/** A column of `users u`, the table the compiled fragment is over; names come from the users domain. */
function user(column: UserColumn): string {
  return `u.${column}`;
}

/**
 * Attribute paths (lower case) → columns. Maps, not object literals: a filter names attributes, and
 * `constructor` or `__proto__` must be an unknown attribute, not a member of Object.prototype.
 */
const COLUMNS = new Map<string, Column>([
  ['id', { kind: 'exact', column: user(USER_COLUMNS.id) }],
  ['externalid', { kind: 'exact', column: user(USER_COLUMNS.externalId) }],
  ['username', { kind: 'text', column: user(USER_COLUMNS.userNameLower), lowered: true }],
  ['name.familyname', { kind: 'text', column: user(USER_COLUMNS.familyName), lowered: false }],
  ['name.givenname', { kind: 'text', column: user(USER_COLUMNS.givenName), lowered: false }],
  ['displayname', { kind: 'text', column: user(USER_COLUMNS.displayName), lowered: false }],
  ['nickname', { kind: 'text', column: user(USER_COLUMNS.nickName), lowered: false }],
  ['title', { kind: 'text', column: user(USER_COLUMNS.title), lowered: false }],
  ['usertype', { kind: 'text', column: user(USER_COLUMNS.userType), lowered: false }],
  ['preferredlanguage', { kind: 'text', column: user(USER_COLUMNS.preferredLanguage), lowered: false }],
  ['locale', { kind: 'text', column: user(USER_COLUMNS.locale), lowered: false }],
  ['timezone', { kind: 'text', column: user(USER_COLUMNS.timezone), lowered: false }],
  ['active', { kind: 'active' }],
  ['meta.created', { kind: 'date', column: user(USER_COLUMNS.createdAt) }],
  ['meta.lastmodified', { kind: 'date', column: user(USER_COLUMNS.changedAt) }],
]);

const CONTACT_ATTRIBUTES = new Map<string, 'email' | 'phone'>([
  ['emails', 'email'],
  ['phonenumbers', 'phone'],
]);
const CONTACT_FIELDS = new Map<string, ContactField>([
  ['value', CONTACT_COLUMNS.valueLower],
  ['type', CONTACT_COLUMNS.typeLower],
  ['primary', CONTACT_COLUMNS.isPrimary],
]);

const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;

/** Compiles a parsed filter (RFC 7644 §3.4.2.2) to SQL over `users u`; anything unsupported is invalidFilter. */
export function compileFilter(filter: FilterNode, dialect: SqlDialect): SqlFragment {
  const compiler = new FilterCompiler(dialect);
  return { sql: compiler.node(filter), params: compiler.params };
}

class FilterCompiler extends SqlComparisons {
  node(filter: FilterNode): string {
    return this.logical(filter, (node) => {
      if (node.kind !== 'valuePath') return this.leaf(node, resolve(node.attrPath));
      const contact = CONTACT_ATTRIBUTES.get(stripCore(node.attrPath.path));
      if (!contact) throw unsupported(`value filters on "${node.attrPath.path}"`);
      return this.exists(contact, this.contactFilter(node.filter, contact));
    });
  }

  /** The inner filter of `emails[…]`: every condition on the same contact row. */
  private contactFilter(filter: FilterNode, contact: 'email' | 'phone'): string {
    return this.logical(filter, (node) => {
      if (node.kind === 'valuePath') throw unsupported('nested value filters');
      const sub = node.attrPath.subAttribute ?? node.attrPath.attribute;
      const field = CONTACT_FIELDS.get(sub.toLowerCase());
      if (!field || node.attrPath.uri !== undefined) throw unsupported(`"${node.attrPath.path}" inside a value filter`);
      return this.contactLeaf(node, contact, field);
    });
  }

  private leaf(node: CompareNode | PresentNode, column: Column): string {
    if (column.kind === 'contact') return this.exists(column.contact, this.contactLeaf(node, column.contact, column.field));
    if (node.kind === 'present' || node.value === null) {
      // RFC 7644 §3.4.2.2 "pr": a non-empty value; `eq null` is "not present", `ne null` present.
      const present = presentSql(column);
      if (node.kind === 'present') return present;
      if (node.op === 'eq') return `(NOT ${present})`;
      if (node.op === 'ne') return present;
      throw unsupported(`"${node.op}" with null`);
    }
    const { op, value } = node;
    switch (column.kind) {
      case 'active': {
        if (typeof value !== 'boolean') throw ScimError.badRequest('invalidFilter', `"active" compares with true or false, not ${JSON.stringify(value)}`);
        if (op !== 'eq' && op !== 'ne') throw unsupported(`"${op}" on a boolean`);
        return (op === 'eq') === value ? activeUserSql('u') : notActiveUserSql('u');
      }
      case 'date': {
        const millis = typeof value === 'string' ? parseDateTime(value) : undefined;
        if (millis === undefined) throw ScimError.badRequest('invalidFilter', `${JSON.stringify(value)} is not a dateTime`);
        return this.ordered(column.column, op, millis, 'a dateTime');
      }
      case 'exact':
        return this.text(column.column, op, stringValue(value, node.attrPath), true);
      case 'text':
        return column.lowered
          ? this.loweredText(column.column, op, stringValue(value, node.attrPath))
          : this.foldedText(column.column, op, stringValue(value, node.attrPath));
    }
  }

  private contactLeaf(node: CompareNode | PresentNode, contact: 'email' | 'phone', field: ContactField): string {
    const column = `c.${field}`;
    if (node.kind === 'present') return field === CONTACT_COLUMNS.isPrimary ? `${column} = 1` : `(${column} IS NOT NULL AND ${column} <> '')`;
    if (node.value === null) return node.op === 'eq' ? `${column} IS NULL` : `${column} IS NOT NULL`;
    if (field === CONTACT_COLUMNS.isPrimary) {
      if (typeof node.value !== 'boolean' || (node.op !== 'eq' && node.op !== 'ne')) throw unsupported(`"${node.op} ${String(node.value)}" on primary`);
      return `${column} = ${(node.op === 'eq') === node.value ? 1 : 0}`;
    }
    let value = stringValue(node.value, node.attrPath);
    // Phone numbers are stored compact (docs/product-rules.md, "SCIM"); compare the filter value the same way.
    if (contact === 'phone' && field === CONTACT_COLUMNS.valueLower) value = value.replace(/[\s\-.()/]/g, '');
    return this.loweredText(column, node.op, value);
  }

  private exists(contact: 'email' | 'phone', condition: string): string {
    const c = CONTACT_COLUMNS;
    return `EXISTS (SELECT 1 FROM ${CONTACT_TABLE} c WHERE c.${c.userId} = ${user(USER_COLUMNS.id)} AND c.${c.kind} = '${contact}' AND ${condition})`;
  }
}

function presentSql(column: Exclude<Column, { kind: 'contact' }>): string {
  switch (column.kind) {
    case 'active':
      return '1 = 1';
    case 'date':
      return `${column.column} IS NOT NULL`;
    default:
      return `(${column.column} IS NOT NULL AND ${column.column} <> '')`;
  }
}

function stripCore(path: string): string {
  return path.startsWith(CORE_PREFIX) ? path.slice(CORE_PREFIX.length) : path;
}

function resolve(attrPath: AttrPath): Column {
  const path = stripCore(attrPath.path);
  if (path.startsWith(ENTERPRISE_SCHEMA.toLowerCase())) throw unsupported(`filtering on "${attrPath.path}"`);
  const direct = COLUMNS.get(path);
  if (direct) return direct;
  const [attribute, sub] = path.split('.');
  const contact = CONTACT_ATTRIBUTES.get(attribute);
  const field = CONTACT_FIELDS.get(sub ?? 'value');
  if (contact && field) return { kind: 'contact', contact, field };
  throw unsupported(`filtering on "${attrPath.path}"`);
}
