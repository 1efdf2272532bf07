import { formatAttrPath, type FilterNode, type PatchPath } from './scim-filter.ast.js';

/**
 * Renders an AST back to RFC 7644 filter text (strict grammar: quoted strings, `not (...)`),
 * adding parentheses only where needed so that `parseFilter(formatFilter(ast))` equals `ast`.
 */
export function formatFilter(node: FilterNode): string {
  switch (node.kind) {
    case 'compare':
      return `${formatAttrPath(node.attrPath)} ${node.op} ${JSON.stringify(node.value)}`;
    case 'present':
      return `${formatAttrPath(node.attrPath)} pr`;
    case 'and':
    case 'or':
      return `${operand(node.left, node.kind, false)} ${node.kind} ${operand(node.right, node.kind, true)}`;
    case 'not':
      return `not (${formatFilter(node.filter)})`;
    case 'valuePath':
      return `${formatAttrPath(node.attrPath)}[${formatFilter(node.filter)}]`;
  }
}

export function formatPatchPath(path: PatchPath): string {
  const base = formatAttrPath(path.attrPath);
  if (path.filter === undefined) return base;
  const sub = path.subAttribute === undefined ? '' : `.${path.subAttribute}`;
  return `${base}[${formatFilter(path.filter)}]${sub}`;
}

/** `and` binds tighter than `or`; both are left-associative, so a same-kind right operand needs parentheses. */
function operand(child: FilterNode, parent: 'and' | 'or', isRight: boolean): string {
  const text = formatFilter(child);
  const needsParens = (parent === 'and' && child.kind === 'or') || (isRight && child.kind === parent);
  return needsParens ? `(${text})` : text;
}
