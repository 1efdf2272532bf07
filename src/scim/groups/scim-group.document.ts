import type { JsonObject } from '../../common/database/columns.js';
import type { GroupRow, MemberRow } from '../../users/groups/group.queries.js';
import { GROUP_SCHEMA } from '../scim.constants.js';

/**
 * A group as a SCIM Group resource (RFC 7643 §4.2). `members` is left out when `withMembers` is false
 * (the selection excluded it, as Entra ID asks with `excludedAttributes=members`), so a group of
 * 100,000 members is not read to answer that.
 */
export function toScimGroup(group: GroupRow, members: readonly MemberRow[] | undefined, baseUrl: string): JsonObject {
  const resource: JsonObject = { schemas: [GROUP_SCHEMA], id: group.id };
  if (group.externalId !== null) resource.externalId = group.externalId;
  resource.displayName = group.displayName;
  if (members)
    resource.members = members.map((m) => ({ value: m.userId, display: m.display, $ref: `${baseUrl}/Users/${encodeURIComponent(m.userId)}`, type: 'User' }));
  resource.meta = {
    resourceType: 'Group',
    created: group.createdAt.toISOString(),
    lastModified: group.changedAt.toISOString(),
    location: `${baseUrl}/Groups/${encodeURIComponent(group.id)}`,
    version: `W/"${group.changedAt.getTime()}"`,
  };
  return resource;
}
