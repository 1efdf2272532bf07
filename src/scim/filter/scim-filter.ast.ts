/**
 * Typed AST for SCIM v2 filters (RFC 7644 §3.4.2.2) and PATCH paths (RFC 7644 §3.5.2).
 * Every node is a discriminated union member with a `kind` field so compilers (SQL, in-memory
 * matcher, formatter) can walk it with an exhaustive `switch`.
 */

/** Comparison operators of RFC 7644 §3.4.2.2, Table 3, normalised to lower case. */
export const COMPARE_OPERATORS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
export type CompareOperator = (typeof COMPARE_OPERATORS)[number];

/** `compValue = false / null / true / number / string` (RFC 7644 §3.4.2.2, Figure 1). */
export type CompValue = string | number | boolean | null;

/**
 * `attrPath = [URI ":"] ATTRNAME *1subAttr`. Names keep the client's spelling; `path` is the
 * normalised form: lower case, `[uri:]attribute[.subAttribute]`
 * (e.g. `urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:department`, `name.givenname`).
 */
export interface AttrPath {
  readonly uri: string | undefined;
  readonly attribute: string;
  readonly subAttribute: string | undefined;
  readonly path: string;
}

/** `attrPath compareOp compValue`. */
export interface CompareNode {
  readonly kind: 'compare';
  readonly attrPath: AttrPath;
  readonly op: CompareOperator;
  readonly value: CompValue;
}

/** `attrPath "pr"`. */
export interface PresentNode {
  readonly kind: 'present';
  readonly attrPath: AttrPath;
}

export interface AndNode {
  readonly kind: 'and';
  readonly left: FilterNode;
  readonly right: FilterNode;
}

export interface OrNode {
  readonly kind: 'or';
  readonly left: FilterNode;
  readonly right: FilterNode;
}

/** `"not" "(" valFilter ")"`. */
export interface NotNode {
  readonly kind: 'not';
  readonly filter: FilterNode;
}

/**
 * `valuePath = attrPath "[" valFilter "]"`: some value of the (multi-valued, complex) attribute
 * satisfies `filter`, whose attribute paths are relative to that value (`type`, not `emails.type`).
 * The extension `emails[type eq "work"].value co "x"` is parsed as
 * `emails[type eq "work" and value co "x"]`.
 */
export interface ValuePathNode {
  readonly kind: 'valuePath';
  readonly attrPath: AttrPath;
  readonly filter: FilterNode;
}

export type FilterNode = CompareNode | PresentNode | AndNode | OrNode | NotNode | ValuePathNode;

/**
 * A PATCH `path` (RFC 7644 §3.5.2, Figure 7): `attrPath`, `attrPath[valFilter]` or
 * `attrPath[valFilter].subAttr`. `filter` is relative to the values of `attrPath`;
 * `subAttribute` is the name after `]`, if any.
 */
export interface PatchPath {
  readonly attrPath: AttrPath;
  readonly filter: FilterNode | undefined;
  readonly subAttribute: string | undefined;
}

export function isCompareOperator(text: string): text is CompareOperator {
  return (COMPARE_OPERATORS as readonly string[]).includes(text);
}

/** Builds an `AttrPath`, computing its normalised `path`. */
export function makeAttrPath(uri: string | undefined, attribute: string, subAttribute: string | undefined): AttrPath {
  return { uri, attribute, subAttribute, path: formatAttrPath({ uri, attribute, subAttribute }).toLowerCase() };
}

/** `[uri:]attribute[.subAttribute]` in the original spelling. */
export function formatAttrPath(p: Pick<AttrPath, 'uri' | 'attribute' | 'subAttribute'>): string {
  const prefix = p.uri === undefined ? '' : `${p.uri}:`;
  const suffix = p.subAttribute === undefined ? '' : `.${p.subAttribute}`;
  return `${prefix}${p.attribute}${suffix}`;
}
