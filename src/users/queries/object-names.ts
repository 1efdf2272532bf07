import type { EntityManager } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';

/** What a named object is: the kinds a page of events mentions besides users. */
export type ObjectKind = 'org' | 'project' | 'application' | 'group';

export interface ObjectNameRow {
  id: string;
  kind: ObjectKind;
  name: string;
}

/**
 * The names of the organizations, projects, applications and groups of these ids, in any organization; ids of
 * nothing (or nothing any longer) are absent. By primary key, one statement per table: a page of events names few.
 */
export async function objectNames(manager: EntityManager, ids: string[]): Promise<ObjectNameRow[]> {
  if (ids.length === 0) return [];
  const list = placeholders(ids.length);
  return manager.query(
    `SELECT id, 'org' AS kind, name FROM organizations WHERE id IN (${list})
     UNION ALL SELECT id, 'project' AS kind, name FROM projects WHERE id IN (${list})
     UNION ALL SELECT id, 'application' AS kind, name FROM applications WHERE id IN (${list})
     UNION ALL SELECT id, 'group' AS kind, display_name AS name FROM org_groups WHERE id IN (${list})`,
    [...ids, ...ids, ...ids, ...ids],
  );
}
