import type { AttrPath, FilterNode } from './scim-filter.ast.js';
import { AttributePathSet } from './scim-attribute-set.js';
import { compareValue } from './scim-filter.compare.js';
import { getCi, isAssigned, isRecord, toArray, type JsonObject } from './scim-filter.objects.js';

/**
 * Attributes whose string values compare case-sensitively. RFC 7643 marks `id`, `externalId`,
 * `meta.location`, `meta.version` and references (`$ref`) `caseExact: true`; everything else
 * defaults to `caseExact: false` (RFC 7643 §2.2).
 */
export const DEFAULT_CASE_EXACT_ATTRIBUTES: readonly string[] = ['id', 'externalId', 'meta.location', 'meta.version', '*.$ref'];

export interface MatchOptions {
  /**
   * Normalised attribute paths (`id`, `members.value`, `*.$ref`, `urn:…:user:employeenumber`)
   * compared case-sensitively. Defaults to `DEFAULT_CASE_EXACT_ATTRIBUTES`.
   */
  readonly caseExactAttributes?: Iterable<string> | AttributePathSet;
}

/**
 * Evaluates a filter against an in-memory resource (RFC 7644 §3.4.2.2):
 * - attribute names match keys ignoring case;
 * - "If the specified attribute in a filter expression is a multi-valued attribute, the filter
 *   matches if any of the values of the specified attribute match the specified criterion";
 *   so `ne` holds when some value differs, and never for an unassigned attribute (as in SQL);
 * - `pr`: "If the attribute has a non-empty value, or if it contains a non-empty node for complex
 *   attributes, there is a match"; `eq null` is "not present" and `ne null` is "present";
 * - URN-qualified paths look inside the resource's object under that URN (an extension) when
 *   there is one, otherwise at the top level (the resource's core schema).
 */
export function matchesFilter(filter: FilterNode, resource: object, options: MatchOptions = {}): boolean {
  return evaluate(filter, asObject(resource), '', caseExactSet(options));
}

/**
 * Evaluates the filter of a value path (`emails[type eq "work"]`) against one value of the
 * multi-valued attribute `attributePath` (normalised, e.g. `emails`). A simple value `v` is seen as
 * `{ value: v }`, so `schemas[value eq "urn:…"]` works on arrays of strings.
 */
export function matchesValueFilter(filter: FilterNode, element: unknown, attributePath: string, options: MatchOptions = {}): boolean {
  return evaluate(filter, asObject(element), `${attributePath.toLowerCase()}.`, caseExactSet(options));
}

function caseExactSet(options: MatchOptions): AttributePathSet {
  const given = options.caseExactAttributes ?? DEFAULT_CASE_EXACT_ATTRIBUTES;
  return given instanceof AttributePathSet ? given : new AttributePathSet(given);
}

function asObject(value: unknown): JsonObject {
  return isRecord(value) ? value : { value };
}

function evaluate(node: FilterNode, context: JsonObject, prefix: string, caseExact: AttributePathSet): boolean {
  switch (node.kind) {
    case 'and':
      return evaluate(node.left, context, prefix, caseExact) && evaluate(node.right, context, prefix, caseExact);
    case 'or':
      return evaluate(node.left, context, prefix, caseExact) || evaluate(node.right, context, prefix, caseExact);
    case 'not':
      return !evaluate(node.filter, context, prefix, caseExact);
    case 'present':
      return resolveValues(context, node.attrPath).some(isAssigned);
    case 'compare': {
      const values = resolveValues(context, node.attrPath);
      if (node.value === null) {
        // RFC 7643 §2.5: null and unassigned are the same state.
        const present = values.some(isAssigned);
        return node.op === 'eq' ? !present : node.op === 'ne' ? present : false;
      }
      const exact = isCaseExact(node.attrPath, prefix, caseExact);
      const expected = node.value;
      return values.some((v) => compareValue(v, node.op, expected, exact));
    }
    case 'valuePath': {
      const elementPrefix = `${prefix}${node.attrPath.path}.`;
      return resolveValues(context, node.attrPath).some((element) => evaluate(node.filter, asObject(element), elementPrefix, caseExact));
    }
  }
}

function isCaseExact(attrPath: AttrPath, prefix: string, caseExact: AttributePathSet): boolean {
  const short = attrPath.subAttribute === undefined ? attrPath.attribute : `${attrPath.attribute}.${attrPath.subAttribute}`;
  return caseExact.has(`${prefix}${attrPath.path}`) || caseExact.has(`${prefix}${short}`);
}

/** All values an attribute path denotes in `context`, with multi-valued attributes flattened. */
function resolveValues(context: JsonObject, attrPath: AttrPath): unknown[] {
  let base: JsonObject = context;
  let value: unknown;
  if (attrPath.uri !== undefined) {
    // `urn:…:enterprise:2.0:User` used as a whole: the extension object itself.
    value = getCi(context, `${attrPath.uri}:${attrPath.attribute}`);
    const extension = getCi(context, attrPath.uri);
    if (isRecord(extension)) base = extension;
  }
  if (value === undefined) value = getCi(base, attrPath.attribute);
  let values = toArray(value);
  const sub = attrPath.subAttribute;
  if (sub !== undefined) {
    values = values.flatMap((element) => (isRecord(element) ? toArray(getCi(element, sub)) : []));
  }
  return values.filter((v) => v !== undefined);
}
