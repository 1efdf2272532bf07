import type { JsonObject } from '../../common/database/columns.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { userNameProblem } from '../../users/rules/user-name.js';
import { ScimError } from '../errors/scim-error.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { refuseCaseVariantKeys } from '../schema/case-variant-keys.js';
import { validateAttributes } from '../schema/scim-body.validator.js';
import { USER_STRING_BOUNDS } from '../schema/scim-bounds.js';
import { ENTERPRISE_ATTRIBUTES, USER_ATTRIBUTES } from '../schema/user.schema.js';

/** A User body checked against the schema: canonical keys, the password taken out (write-only). */
export interface ValidUser {
  /** Core attributes (canonical names), `externalId`, and the enterprise extension under its URN. */
  doc: JsonObject;
  password: string | undefined;
}

/** Attributes every resource has (RFC 7643 §3.1): `id` and `meta` are readOnly and ignored on input. */
const COMMON_IGNORED = new Set(['id', 'meta', 'groups']);
const KNOWN_SCHEMAS = new Map([USER_SCHEMA, ENTERPRISE_SCHEMA].map((s) => [s.toLowerCase(), s]));

/**
 * Validates the body of POST /Users, PUT /Users/{id}, and the result of a PATCH, against the User
 * schema and its enterprise extension (RFC 7643 §4.1, §4.3).
 */
export function validateUser(body: unknown): ValidUser {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ScimError.badRequest('invalidSyntax', 'the request body must be a JSON object');
  }
  refuseCaseVariantKeys(body);
  // Null prototype: a body key `__proto__` is then an (unknown, refused) attribute, not a prototype.
  const core: Record<string, unknown> = Object.create(null);
  let extension: unknown;
  let schemas: unknown;
  let externalId: unknown;
  let password: unknown;
  for (const [key, value] of Object.entries(body)) {
    const lower = key.toLowerCase();
    if (lower === 'schemas') schemas = value;
    else if (lower === ENTERPRISE_SCHEMA.toLowerCase()) extension = value;
    else if (lower === 'externalid') externalId = value;
    else if (lower === 'password') password = value;
    else if (!COMMON_IGNORED.has(lower)) core[key] = value;
  }
  const declared = checkSchemas(schemas);
  const doc = validateAttributes(
    core,
    USER_ATTRIBUTES.filter((a) => a.name !== 'password'),
    '',
    USER_STRING_BOUNDS,
  );
  if (typeof doc.userName !== 'string' || doc.userName.trim() === '') {
    throw ScimError.badRequest('invalidValue', '"userName" is required and must be a non-empty string');
  }
  // The one user name rule of every surface (docs/product-rules.md, "Domain").
  const problem = userNameProblem(doc.userName);
  if (problem !== undefined) throw ScimError.badRequest('invalidValue', `"userName" ${problem}`);
  if (externalId !== undefined && externalId !== null) {
    if (typeof externalId !== 'string') throw ScimError.badRequest('invalidValue', '"externalId" must be a string');
    const bound = USER_STRING_BOUNDS.get('externalId')!;
    if (tooLong(externalId, bound)) throw ScimError.badRequest('invalidValue', `"externalId" must be at most ${bound} characters`);
    doc.externalId = externalId;
  }
  if (extension !== undefined && extension !== null) {
    if (typeof extension !== 'object' || Array.isArray(extension)) throw ScimError.badRequest('invalidValue', `"${ENTERPRISE_SCHEMA}" must be an object`);
    const ext = validateAttributes(
      extension as Record<string, unknown>,
      ENTERPRISE_ATTRIBUTES,
      `${ENTERPRISE_SCHEMA}:`,
      USER_STRING_BOUNDS,
      `${ENTERPRISE_SCHEMA}:`,
    );
    if (Object.keys(ext).length > 0) {
      // RFC 7643 §3: extension attributes come with their URN in "schemas".
      if (!declared.has(ENTERPRISE_SCHEMA))
        throw ScimError.badRequest('invalidSyntax', `"schemas" must list ${ENTERPRISE_SCHEMA} when its attributes are sent`);
      doc[ENTERPRISE_SCHEMA] = ext;
    }
  }
  if (password !== undefined && password !== null && typeof password !== 'string') {
    throw ScimError.badRequest('invalidValue', '"password" must be a string');
  }
  return { doc, password: typeof password === 'string' ? password : undefined };
}

/** RFC 7643 §3: "schemas" is REQUIRED and names the core schema; unknown URIs are refused. */
function checkSchemas(schemas: unknown): Set<string> {
  if (!Array.isArray(schemas) || schemas.some((s) => typeof s !== 'string')) {
    throw ScimError.badRequest('invalidSyntax', `"schemas" must be an array of schema URIs including ${USER_SCHEMA}`);
  }
  const declared = new Set<string>();
  for (const s of schemas as string[]) {
    const known = KNOWN_SCHEMAS.get(s.toLowerCase());
    if (!known) throw ScimError.badRequest('invalidSyntax', `unknown schema "${s}"`);
    declared.add(known);
  }
  if (!declared.has(USER_SCHEMA)) throw ScimError.badRequest('invalidSyntax', `"schemas" must include ${USER_SCHEMA}`);
  return declared;
}
