import { parseDateTime } from '../filter/index.js';
import type { AttrPath, CompValue, CompareNode, FilterNode, PresentNode } from '../filter/index.js';
import { FOLD_SQL_FUNCTION, foldCase } from '../../common/text/case-fold.js';
import { ScimError } from '../errors/scim-error.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { activeUserSql, notActiveUserSql } from '../../users/rules/user-state.js';

/** A WHERE fragment over `users u` with named parameters (`:f0`, `:f1`, …). Never string-built values. */
interface SqlFragment {
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

type ContactField = 'value_lower' | 'type_lower' | 'is_primary';
type SqlDialect = 'sqlite' | 'mysql';

/**
 * Attribute paths (lower case) → columns. Maps, not object literals: a filter names attributes, and
 * `constructor` or `__proto__` must be an unknown attribute, not a member of Object.prototype.
 */
const COLUMNS = new Map<string, Column>([
  ['id', { kind: 'exact', column: 'u.id' }],
  ['externalid', { kind: 'exact', column: 'u.external_id' }],
  ['username', { kind: 'text', column: 'u.user_name_lower', lowered: true }],
  ['name.familyname', { kind: 'text', column: 'u.family_name', lowered: false }],
  ['name.givenname', { kind: 'text', column: 'u.given_name', lowered: false }],
  ['displayname', { kind: 'text', column: 'u.display_name', lowered: false }],
  ['nickname', { kind: 'text', column: 'u.nick_name', lowered: false }],
  ['title', { kind: 'text', column: 'u.title', lowered: false }],
  ['usertype', { kind: 'text', column: 'u.user_type', lowered: false }],
  ['preferredlanguage', { kind: 'text', column: 'u.preferred_language', lowered: false }],
  ['locale', { kind: 'text', column: 'u.locale', lowered: false }],
  ['timezone', { kind: 'text', column: 'u.timezone', lowered: false }],
  ['active', { kind: 'active' }],
  ['meta.created', { kind: 'date', column: 'u.created_at' }],
  ['meta.lastmodified', { kind: 'date', column: 'u.changed_at' }],
]);

const CONTACT_ATTRIBUTES = new Map<string, 'email' | 'phone'>([['emails', 'email'], ['phonenumbers', 'phone']]);
const CONTACT_FIELDS = new Map<string, ContactField>([['value', 'value_lower'], ['type', 'type_lower'], ['primary', 'is_primary']]);

const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;

/** Compiles a parsed filter (RFC 7644 §3.4.2.2) to SQL over `users u`; anything unsupported is invalidFilter. */
export function compileFilter(filter: FilterNode, dialect: SqlDialect): SqlFragment {
  const compiler = new FilterCompiler(dialect);
  return { sql: compiler.node(filter), params: compiler.params };
}

class FilterCompiler {
  readonly params: Record<string, unknown> = {};
  private count = 0;

  constructor(private readonly dialect: SqlDialect) {}

  node(node: FilterNode): string {
    switch (node.kind) {
      case 'and':
        return `(${this.node(node.left)} AND ${this.node(node.right)})`;
      case 'or':
        return `(${this.node(node.left)} OR ${this.node(node.right)})`;
      case 'not':
        return `(NOT ${this.node(node.filter)})`;
      case 'present':
      case 'compare':
        return this.leaf(node, resolve(node.attrPath));
      case 'valuePath': {
        const contact = CONTACT_ATTRIBUTES.get(stripCore(node.attrPath.path));
        if (!contact) throw unsupported(`value filters on "${node.attrPath.path}"`);
        return this.exists(contact, this.contactFilter(node.filter, contact));
      }
      default:
        throw unsupported('this filter');
    }
  }

  /** The inner filter of `emails[…]`: every condition on the same contact row. */
  private contactFilter(node: FilterNode, contact: 'email' | 'phone'): string {
    switch (node.kind) {
      case 'and':
        return `(${this.contactFilter(node.left, contact)} AND ${this.contactFilter(node.right, contact)})`;
      case 'or':
        return `(${this.contactFilter(node.left, contact)} OR ${this.contactFilter(node.right, contact)})`;
      case 'not':
        return `(NOT ${this.contactFilter(node.filter, contact)})`;
      case 'present':
      case 'compare': {
        const sub = node.attrPath.subAttribute ?? node.attrPath.attribute;
        const field = CONTACT_FIELDS.get(sub.toLowerCase());
        if (!field || node.attrPath.uri !== undefined) throw unsupported(`"${node.attrPath.path}" inside a value filter`);
        return this.contactLeaf(node, contact, field);
      }
      default:
        throw unsupported('nested value filters');
    }
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
        return column.lowered ? this.loweredText(column.column, op, stringValue(value, node.attrPath)) : this.foldedText(column.column, op, stringValue(value, node.attrPath));
    }
  }

  private contactLeaf(node: CompareNode | PresentNode, contact: 'email' | 'phone', field: ContactField): string {
    const column = `c.${field}`;
    if (node.kind === 'present') return field === 'is_primary' ? 'c.is_primary = 1' : `(${column} IS NOT NULL AND ${column} <> '')`;
    if (node.value === null) return node.op === 'eq' ? `${column} IS NULL` : `${column} IS NOT NULL`;
    if (field === 'is_primary') {
      if (typeof node.value !== 'boolean' || (node.op !== 'eq' && node.op !== 'ne')) throw unsupported(`"${node.op} ${String(node.value)}" on primary`);
      return `c.is_primary = ${(node.op === 'eq') === node.value ? 1 : 0}`;
    }
    let value = stringValue(node.value, node.attrPath);
    // Phone numbers are stored compact (spec §A); compare the filter value the same way.
    if (contact === 'phone' && field === 'value_lower') value = value.replace(/[\s\-.()/]/g, '');
    return this.loweredText(column, node.op, value);
  }

  /**
   * A column the application stored lower-cased with `toLowerCase()`. Only when the sigma rule of
   * `foldCase` can matter (the value has a σ) or for ordering is the column folded in SQL; otherwise
   * equal lower-cased strings are equal folded ones, and `=` keeps using the column's index.
   */
  private loweredText(column: string, op: CompareNode['op'], value: string): string {
    const folded = foldCase(value);
    if (folded.includes('σ') || !['eq', 'ne', 'co', 'sw', 'ew'].includes(op)) return this.text(`REPLACE(${column}, 'ς', 'σ')`, op, folded, false, column);
    return this.text(column, op, folded, false);
  }

  /** A column stored as sent: folded in SQL by the application's rule (src/common/text/case-fold.ts). */
  private foldedText(column: string, op: CompareNode['op'], value: string): string {
    // MariaDB's LOWER() maps "İ" to "i" where toLowerCase() gives "i̇" (i + U+0307): spelled out first.
    const expr = this.dialect === 'sqlite' ? `${FOLD_SQL_FUNCTION}(${column})` : `REPLACE(LOWER(REPLACE(${column}, 'İ', 'i̇')), 'ς', 'σ')`;
    return this.text(expr, op, foldCase(value), false, column);
  }

  private exists(contact: 'email' | 'phone', condition: string): string {
    return `EXISTS (SELECT 1 FROM user_contacts c WHERE c.user_id = u.id AND c.kind = '${contact}' AND ${condition})`;
  }

  /** String comparisons; `guard` is the raw column, so that an unassigned value never matches (nor its `ne`). */
  /**
   * String comparisons; `guard` is the raw column, so that an unassigned value never matches (nor its
   * `ne`). MariaDB's utf8mb4_bin is PAD SPACE ("a" = "a  "), SQLite's BINARY is not: there equality
   * also compares lengths, and ordering uses the no-pad collation, so both databases answer alike.
   */
  private text(expr: string, op: CompareNode['op'], value: string, exact: boolean, guard = expr): string {
    const p = this.param(value);
    const notNull = `${guard} IS NOT NULL AND `;
    const len = this.dialect === 'sqlite' ? 'LENGTH' : 'CHAR_LENGTH';
    const equal = this.dialect === 'sqlite' ? `${expr} = ${p}` : `${expr} = ${p} AND ${len}(${expr}) = ${len}(${p})`;
    switch (op) {
      case 'eq':
        return `(${notNull}${equal})`;
      case 'ne':
        return `(${notNull}NOT (${equal}))`;
      case 'gt':
      case 'ge':
      case 'lt':
      case 'le':
        return `(${notNull}${expr} ${SQL_OPERATORS.get(op)} ${p}${this.dialect === 'mysql' ? ' COLLATE utf8mb4_nopad_bin' : ''})`;
      case 'co':
      case 'sw':
      case 'ew':
        // Every string contains, starts and ends with "" (and SUBSTR(x, -0) differs between the two).
        if (value === '') return `(${guard} IS NOT NULL)`;
        if (exact) return `(${notNull}${exactMatch(expr, op, p, len)})`;
        this.params[p.slice(1)] = likePattern(value, op);
        return `(${notNull}${expr} LIKE ${p} ESCAPE '!')`;
    }
  }

  private ordered(expr: string, op: CompareNode['op'], value: unknown, what: string): string {
    const sqlOp = SQL_OPERATORS.get(op);
    if (!sqlOp) throw unsupported(`"${op}" on ${what}`);
    return `(${expr} ${sqlOp} ${this.param(value)})`;
  }

  private param(value: unknown): string {
    const name = `f${this.count++}`;
    this.params[name] = value;
    return `:${name}`;
  }
}

const SQL_OPERATORS = new Map<string, string>([['eq', '='], ['ne', '<>'], ['gt', '>'], ['ge', '>='], ['lt', '<'], ['le', '<=']]);

/** Case-sensitive co/sw/ew without LIKE (SQLite's LIKE ignores ASCII case); `len` counts characters. */
function exactMatch(expr: string, op: 'co' | 'sw' | 'ew', p: string, len: string): string {
  if (op === 'co') return `INSTR(${expr}, ${p}) > 0`;
  const long = `${len}(${expr}) >= ${len}(${p})`;
  if (op === 'sw') return `${long} AND SUBSTR(${expr}, 1, ${len}(${p})) = ${p}`;
  return `${long} AND SUBSTR(${expr}, -${len}(${p})) = ${p}`;
}

function likePattern(value: string, op: 'co' | 'sw' | 'ew'): string {
  const escaped = value.replace(/[!%_]/g, (c) => `!${c}`);
  return op === 'co' ? `%${escaped}%` : op === 'sw' ? `${escaped}%` : `%${escaped}`;
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

function stringValue(value: CompValue, path: AttrPath): string {
  // SQLite reads LIKE patterns up to a NUL, so "a\u0000" would become "a"; and no stored text holds one
  // (the User body validator refuses it).
  if (typeof value === 'string' && value.includes('\u0000')) throw ScimError.badRequest('invalidFilter', `"${path.path}" compares with a string containing U+0000`);
  if (typeof value === 'string') return value;
  throw ScimError.badRequest('invalidFilter', `"${path.path}" compares with a string, not ${JSON.stringify(value)}`);
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

function unsupported(what: string): ScimError {
  return ScimError.badRequest('invalidFilter', `${what} is not supported`);
}
