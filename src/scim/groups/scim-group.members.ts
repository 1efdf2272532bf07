import { getCi, isPlainObject } from '../filter/scim-filter.objects.js';
import { ScimError } from '../errors/scim-error.js';

/**
 * The user ids of a `members` value (RFC 7643 §4.2): an array of `{value, display?, type?, $ref?}`, or
 * one such object, keys in any case. `display` and `$ref` are the service's to write, so they are read
 * and dropped; a `type` other than "User" names a member this service cannot hold (no nested groups).
 */
export function memberIds(value: unknown, where: string): string[] {
  const entries = Array.isArray(value) ? value : [value];
  return entries.map((entry, index) => {
    const at = Array.isArray(value) ? `${where}[${index}]` : where;
    if (!isPlainObject(entry)) throw ScimError.badRequest('invalidValue', `${at} must be an object with a "value" naming a user id`);
    const id = getCi(entry, 'value');
    if (typeof id !== 'string' || id === '' || id.includes('\u0000')) throw ScimError.badRequest('invalidValue', `${at}.value must be a non-empty user id`);
    const type = getCi(entry, 'type');
    if (type !== undefined && type !== null && (typeof type !== 'string' || type.toLowerCase() !== 'user')) {
      throw ScimError.badRequest('invalidValue', `${at}.type must be "User": groups hold users only`);
    }
    return id;
  });
}
