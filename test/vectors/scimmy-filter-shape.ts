/**
 * Adapters between our filter AST and scimmy's filter vector shape.
 *
 * scimmy writes a filter in disjunctive normal form: an array (OR) of objects (AND) mapping an
 * attribute to an expression (`["eq", "x"]`, `["not", "pr"]`), a list of expressions, or a nested
 * object of sub-attributes. Both sides are reduced to a canonical DNF of literal strings such as
 * `not emails.value co "x"`, sorted, so they compare independently of key order.
 */
import type { CompValue, FilterNode } from '../../src/scim/filter/scim-filter.ast.js';
import { isPlainObject } from '../../src/scim/filter/scim-filter.objects.js';

export type Dnf = string[][];

/** Our AST → canonical DNF. Negation is pushed to the literals with De Morgan's laws. */
export function astToDnf(node: FilterNode): Dnf {
  return canonical(dnf(node, false, []));
}

/** A scimmy target (array of AND-objects) → canonical DNF. */
export function scimmyToDnf(target: readonly unknown[]): Dnf {
  return canonical(target.map((conj) => flatten(conj, [])));
}

/**
 * A scimmy match expression → filter text for our parser. Nested objects with several keys are
 * value paths (scimmy requires the same value to match them all); `np` is `not (… pr)`.
 */
export function scimmyExpressionToFilter(expression: unknown): string {
  if (Array.isArray(expression)) return expression.map((c) => `(${conjunctionText(c)})`).join(' or ');
  return conjunctionText(expression);
}

function dnf(node: FilterNode, negated: boolean, prefix: string[]): Dnf {
  switch (node.kind) {
    case 'compare':
    case 'present': {
      const p = node.attrPath;
      const segments = [...prefix, (p.uri === undefined ? p.attribute : `${p.uri}:${p.attribute}`).toLowerCase()];
      if (p.subAttribute !== undefined) segments.push(p.subAttribute.toLowerCase());
      const value = node.kind === 'compare' ? [node.value] : [];
      return [[literal(segments, negated, node.kind === 'compare' ? node.op : 'pr', value)]];
    }
    case 'not':
      return dnf(node.filter, !negated, prefix);
    case 'and':
    case 'or': {
      const left = dnf(node.left, negated, prefix);
      const right = dnf(node.right, negated, prefix);
      const conjunctive = (node.kind === 'and') !== negated;
      return conjunctive ? left.flatMap((l) => right.map((r) => [...l, ...r])) : [...left, ...right];
    }
    case 'valuePath':
      return dnf(node.filter, negated, [...prefix, node.attrPath.path]);
  }
}

function literal(path: readonly string[], negated: boolean, op: string, value: readonly unknown[]): string {
  const tail = value.length > 0 ? ` ${JSON.stringify(value[0])}` : '';
  return `${negated ? 'not ' : ''}${path.join('.')} ${op.toLowerCase()}${tail}`;
}

function isLeaf(value: unknown): value is [string, ...unknown[]] {
  return Array.isArray(value) && typeof value[0] === 'string';
}

function flatten(value: unknown, path: string[]): string[] {
  if (isLeaf(value)) {
    const negated = value[0].toLowerCase() === 'not';
    const [op, ...rest] = negated ? value.slice(1) : value;
    return [literal(path, negated, String(op), rest)];
  }
  if (Array.isArray(value)) return value.flatMap((v) => flatten(v, path));
  if (isPlainObject(value)) return Object.entries(value).flatMap(([k, v]) => flatten(v, [...path, k.toLowerCase()]));
  throw new Error(`unexpected scimmy expression part ${JSON.stringify(value)}`);
}

function canonical(dnf: Dnf): Dnf {
  return dnf.map((conj) => [...conj].sort()).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function conjunctionText(conj: unknown): string {
  if (!isPlainObject(conj)) throw new Error(`expected an object, got ${JSON.stringify(conj)}`);
  return Object.entries(conj)
    .map(([attr, value]) => attributeText(attr, value))
    .join(' and ');
}

function attributeText(path: string, value: unknown): string {
  if (isLeaf(value)) return leafText(path, value);
  if (Array.isArray(value) && value.every(isLeaf)) return value.map((leaf) => leafText(path, leaf)).join(' and ');
  if (Array.isArray(value) && value.length === 2 && isPlainObject(value[0])) {
    return `${path}[${conjunctionText(value[0])}]`; // scimmy's `[{filter}, ["pr"]]`: the value path itself
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    const only = entries.length === 1 ? entries[0] : undefined;
    return only === undefined ? `${path}[${conjunctionText(value)}]` : attributeText(`${path}.${only[0]}`, only[1]);
  }
  throw new Error(`unexpected scimmy expression ${JSON.stringify(value)}`);
}

function leafText(path: string, leaf: readonly unknown[]): string {
  const [first, ...rest] = leaf;
  const op = String(first).toLowerCase();
  if (op === 'not') return `not (${leafText(path, rest)})`;
  if (op === 'np') return `not (${path} pr)`;
  if (op === 'pr') return `${path} pr`;
  return `${path} ${op} ${JSON.stringify(rest[0] as CompValue)}`;
}
