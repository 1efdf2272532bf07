import { makeAttrPath, type AttrPath } from './scim-filter.ast.js';

/**
 * RFC 7643 §2.1: `ATTRNAME = ALPHA *(nameChar)`, `nameChar = "-" / "_" / DIGIT / ALPHA`.
 * A leading `$` is also accepted for the reserved reference sub-attribute `$ref` (RFC 7643 §2.3.7).
 */
const ATTRNAME = /^\$?[A-Za-z][A-Za-z0-9_-]*$/;

/** `urn:<NID>:<NSS>` (RFC 8141), loosely: the NSS may itself contain `:` and `.` (e.g. `2.0`). */
const URN = /^urn:[A-Za-z0-9][A-Za-z0-9-]{0,31}:[^\s:]+(?::[^\s:]+)*$/i;

type AttrPathParse = { readonly ok: true; readonly attrPath: AttrPath } | { readonly ok: false; readonly reason: string };

export function isValidAttrName(name: string): boolean {
  return ATTRNAME.test(name);
}

/**
 * Parses the text of an `attrPath` (`[URI ":"] ATTRNAME *1subAttr`). For URN-qualified names the
 * attribute starts after the last `:`, so `urn:…:enterprise:2.0:User:manager.value` yields
 * uri `urn:…:enterprise:2.0:User`, attribute `manager`, sub-attribute `value`.
 */
export function parseAttrPathText(text: string): AttrPathParse {
  let uri: string | undefined;
  let rest = text;
  if (/^urn:/i.test(text)) {
    const colon = text.lastIndexOf(':');
    uri = text.slice(0, colon);
    rest = text.slice(colon + 1);
    if (!URN.test(uri)) {
      return { ok: false, reason: `'${uri}' is not a valid schema URN` };
    }
    if (rest === '') {
      return { ok: false, reason: `an attribute name is missing after '${uri}:'` };
    }
  } else if (text.includes(':')) {
    return { ok: false, reason: `'${text}' is not a valid attribute path (':' is only allowed in 'urn:' prefixes)` };
  }
  const parts = rest.split('.');
  if (parts.length > 2) {
    return { ok: false, reason: `'${text}' has more than one sub-attribute level (attrPath allows at most one '.')` };
  }
  const bad = parts.find((p) => !ATTRNAME.test(p));
  if (bad !== undefined) {
    const shown = bad === '' ? `'${text}' (empty name)` : `'${bad}'`;
    return { ok: false, reason: `${shown} is not a valid attribute name (ATTRNAME = ALPHA *("-" / "_" / DIGIT / ALPHA))` };
  }
  return { ok: true, attrPath: makeAttrPath(uri, parts[0] ?? '', parts[1]) };
}
