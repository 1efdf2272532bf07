import type { EntityManager } from 'typeorm';
import type { EventDto } from '../../admin/dto/events.dto.js';
import { organizationNames } from '../../users/queries/organizations.js';
import { userNames } from '../../users/queries/user-names.js';
import type { RecordNames } from './audit-record.js';

/** The names a batch's records carry: each editor's user name and each organization's name, read once per batch. */
export async function recordNames(manager: EntityManager, events: EventDto[]): Promise<RecordNames> {
  const userIds = [...new Set(events.map((e) => e.editor.userId).filter((id): id is string => id !== null))];
  const orgIds = [...new Set(events.map((e) => e.aggregate.resourceOwner).filter((id) => id !== 'instance'))];
  const [users, organizations] = await Promise.all([userNames(manager, userIds), organizationNames(manager, orgIds)]);
  return {
    users: new Map(users.map((u) => [u.id, u.user_name])),
    organizations: new Map(organizations.map((o) => [o.id, o.name])),
  };
}
