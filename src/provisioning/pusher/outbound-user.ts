import type { JsonObject } from '../../common/database/columns.js';
import { toScimUser } from '../../scim/users/scim-user.mapper.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { isInactive } from '../../users/rules/user-state.js';
import { SINGULAR_USER_ATTRIBUTES } from '../../scim/users/scim-user.attributes.js';

/**
 * What a target receives for a user (docs/provisioning.md, "What is pushed"): the SCIM representation the inbound API serves (RFC 7643 §4.1),
 * without what is this instance's own (`id`, `meta`, the read-only `groups`), with `externalId` the Portcullis id and
 * `userName` the name the target chose. Passwords are never stored in a readable form and never sent. A locked user
 * stays active: a lock is not a deactivation (only `inactive` is `active: false`).
 */
export function outboundUser(user: UserEntity, userName: string): JsonObject {
  const { id: _id, meta: _meta, groups: _groups, externalId: _externalId, ...rest } = toScimUser(user, '');
  return { ...rest, externalId: user.id, userName, active: !isInactive(user) };
}

/**
 * The attributes a user's document may carry besides `userName`, `externalId` and `active` (scim-user.mapper.ts): one
 * that is absent was cleared here, or never set, and is removed at the target (docs/provisioning.md, "What is
 * pushed"). The enterprise extension is not among them: a target that does not declare it refuses the path.
 */
export const CLEARABLE_ATTRIBUTES = [
  'name',
  ...SINGULAR_USER_ATTRIBUTES,
  'emails',
  'phoneNumbers',
  'addresses',
  'ims',
  'photos',
  'roles',
  'entitlements',
  'x509Certificates',
] as const;
const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;

/**
 * The paths a PATCH removes so the target holds no more than the document (RFC 7644 §3.5.2.2): every clearable
 * attribute the document lacks, and the parts of `name` it lacks. A `replace` without a path only sets what it
 * names (§3.5.2.3), so a phone number or a title cleared here would otherwise stay at the target.
 */
export function clearedPaths(doc: JsonObject, declared?: ReadonlySet<string>): string[] {
  const paths: string[] = CLEARABLE_ATTRIBUTES.filter((key) => doc[key] === undefined || doc[key] === null);
  const name = doc.name;
  if (name && typeof name === 'object' && !Array.isArray(name))
    for (const part of NAME_PARTS) if ((name as JsonObject)[part] === undefined) paths.push(`name.${part}`);
  // A target refuses a path its User schema does not declare (Better Auth's, for one, has no nickName).
  return declared ? paths.filter((path) => declared.has(path.toLowerCase())) : paths;
}

/**
 * The attribute paths a target's User schema declares (RFC 7643 §7, `GET /Schemas/<User schema>`), lower-cased:
 * `title`, `name`, `name.givenName`, …; undefined when the answer is not such a schema.
 */
export function declaredPaths(schema: unknown): Set<string> | undefined {
  const attributes = (schema as { attributes?: unknown } | undefined)?.attributes;
  if (!Array.isArray(attributes)) return undefined;
  const paths = new Set<string>();
  for (const attribute of attributes as { name?: unknown; subAttributes?: unknown }[]) {
    if (typeof attribute?.name !== 'string') continue;
    const name = attribute.name.toLowerCase();
    paths.add(name);
    if (Array.isArray(attribute.subAttributes))
      for (const sub of attribute.subAttributes as { name?: unknown }[]) if (typeof sub?.name === 'string') paths.add(`${name}.${sub.name.toLowerCase()}`);
  }
  return paths;
}
