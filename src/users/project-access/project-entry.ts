import type { EntityManager } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';

/**
 * Which of these projects the user may enter (docs/application-access.md, "Restrict an application"): a project none
 * of whose applications has `access: "granted"`, or one a grant reaches the user in (its own or a group's, roles or
 * none). A project with one `granted` application admits no more people than that application does, so naming the
 * project (an audience scope, say) never gets round it. Read on use, one statement whatever the number of projects.
 */
export async function projectsEntered(manager: EntityManager, projectIds: string[], userId: string): Promise<Set<string>> {
  const ids = [...new Set(projectIds)];
  if (ids.length === 0) return new Set();
  const rows = (await manager.query(
    `SELECT p.id FROM projects p WHERE p.id IN (${placeholders(ids.length)}) AND (
       NOT EXISTS (SELECT 1 FROM applications a WHERE a.project_id = p.id AND a.access = 'granted')
       OR EXISTS (SELECT 1 FROM project_grants g WHERE g.project_id = p.id AND g.user_id = ?)
       OR EXISTS (SELECT 1 FROM group_members m JOIN project_grants g ON g.group_id = m.group_id WHERE m.user_id = ? AND g.project_id = p.id))`,
    [...ids, userId, userId],
  )) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}
