import { ScimError } from '../errors/scim-error.js';
import { isPlainObject } from '../filter/scim-filter.objects.js';
import { refuseCaseVariantKeys } from '../schema/case-variant-keys.js';
import { GROUP_SCHEMA } from '../scim.constants.js';
import { memberIds } from './scim-group.members.js';

/** A Group body of POST /Groups or PUT /Groups/{id}, checked: members absent means none (a PUT replaces them all). */
export interface ValidGroup {
  displayName: string;
  externalId: string | null;
  memberIds: string[];
}

/** Readonly attributes (RFC 7643 §3.1) a client may send back; ignored. */
const IGNORED = new Set(['id', 'meta']);

/** Validates a Group body (RFC 7643 §4.2); attribute names in any case, each named once (at any depth). */
export function validateGroup(body: unknown): ValidGroup {
  if (!isPlainObject(body)) throw ScimError.badRequest('invalidSyntax', 'the request body must be a JSON object');
  refuseCaseVariantKeys(body);
  const attributes = new Map(Object.entries(body).map(([key, value]) => [key.toLowerCase(), value]));
  checkSchemas(attributes.get('schemas'));
  for (const name of attributes.keys()) {
    if (!['schemas', 'displayname', 'externalid', 'members'].includes(name) && !IGNORED.has(name)) {
      throw ScimError.badRequest('invalidSyntax', `"${name}" is not an attribute of a Group (displayName, externalId, members)`);
    }
  }
  const displayName = attributes.get('displayname');
  if (typeof displayName !== 'string' || displayName.trim() === '')
    throw ScimError.badRequest('invalidValue', '"displayName" is required and must be a non-empty string');
  const externalId = attributes.get('externalid') ?? null;
  if (externalId !== null && typeof externalId !== 'string') throw ScimError.badRequest('invalidValue', '"externalId" must be a string');
  const members = attributes.get('members');
  return { displayName, externalId, memberIds: members === undefined || members === null ? [] : memberIds(members, 'members') };
}

function checkSchemas(schemas: unknown): void {
  if (!Array.isArray(schemas) || !schemas.every((s) => typeof s === 'string')) {
    throw ScimError.badRequest('invalidSyntax', `"schemas" must be an array of schema URIs including ${GROUP_SCHEMA}`);
  }
  const unknown = schemas.find((s) => s.toLowerCase() !== GROUP_SCHEMA.toLowerCase());
  if (unknown !== undefined) throw ScimError.badRequest('invalidSyntax', `unknown schema "${unknown}"`);
  if (schemas.length === 0) throw ScimError.badRequest('invalidSyntax', `"schemas" must include ${GROUP_SCHEMA}`);
}
