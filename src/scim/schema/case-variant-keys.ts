import { ScimError } from '../errors/scim-error.js';

/**
 * Refuses an object that spells one attribute twice, e.g. "userName" and "username", at any depth
 * (in `name`, in an `emails` entry, in the enterprise extension). RFC 7643 §2.1: "Attribute names are
 * case insensitive", so both keys name the same attribute and which one would be stored is arbitrary
 * (JSON's member order); the request is refused as invalidSyntax before anything is written.
 */
export function refuseCaseVariantKeys(value: unknown, where = ''): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseCaseVariantKeys(item, `${where}[${i}]`));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const prefix = where === '' ? '' : `${where}.`;
  const seen = new Map<string, string>();
  for (const [key, child] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const earlier = seen.get(lower);
    if (earlier !== undefined) {
      throw ScimError.badRequest('invalidSyntax', `"${prefix}${earlier}" and "${prefix}${key}" name the same attribute (attribute names are case-insensitive)`);
    }
    seen.set(lower, key);
    refuseCaseVariantKeys(child, `${prefix}${key}`);
  }
}
