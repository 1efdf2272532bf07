import type { JsonObject } from '../../common/database/columns.js';
import { toScimUser } from '../../scim/users/scim-user.mapper.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { isInactive } from '../../users/rules/user-state.js';

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
