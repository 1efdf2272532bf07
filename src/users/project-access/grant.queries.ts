import type { EntityManager } from 'typeorm';
import { lockingRead } from '../../common/database/locking-read.js';
import type { ApplicationAccessMode } from '../entities/application.entity.js';
import { API_RESOURCE_COLUMNS } from '../queries/api-resources.js';
import type { ApiResourceRow } from '../queries/api-resources.js';

/** A grant that reaches a user: its own (`via: "user"`) or one of a group it is a member of. */
export interface EffectiveGrant {
  grantId: string;
  projectId: string;
  roles: string[];
  via: 'user' | 'group';
  groupId?: string;
}

interface GrantRow {
  id: string;
  project_id: string;
  group_id: string | null;
  roles: string;
}

/**
 * The grants reaching a user — its own, then its groups' — in one statement. Each half walks an index: the user's
 * grants through `ix_project_grants_user`, its groups through `ix_group_members_user` and each group's grants through
 * `ix_project_grants_group` (or the unique (project, user/group) indexes when `projectId` narrows it), so a user in
 * 200 groups costs 200 index probes whatever the number of grants in the project.
 */
export async function grantsReaching(manager: EntityManager, userId: string, projectId?: string): Promise<EffectiveGrant[]> {
  const inProject = projectId === undefined ? '' : ' AND g.project_id = ?';
  const projectArg = projectId === undefined ? [] : [projectId];
  const rows = (await manager.query(
    `SELECT g.id, g.project_id, g.group_id, g.roles FROM project_grants g WHERE g.user_id = ?${inProject}
     UNION ALL
     SELECT g.id, g.project_id, g.group_id, g.roles FROM group_members m JOIN project_grants g ON g.group_id = m.group_id WHERE m.user_id = ?${inProject}`,
    [userId, ...projectArg, userId, ...projectArg],
  )) as GrantRow[];
  return rows
    .map(
      (row): EffectiveGrant => ({
        grantId: row.id,
        projectId: row.project_id,
        roles: JSON.parse(row.roles) as string[],
        ...(row.group_id === null ? { via: 'user' as const } : { via: 'group' as const, groupId: row.group_id }),
      }),
    )
    .sort((a, b) => compare(a.projectId, b.projectId) || compare(a.via, b.via) || compare(a.groupId ?? '', b.groupId ?? ''));
}

/** A grant of the project (`project`: a placeholder or a column) held by the user (`?`) itself. */
const ownGrant = (project: string) => `SELECT 1 AS found FROM project_grants g WHERE g.project_id = ${project} AND g.user_id = ?`;
/** A grant of the project (`project`: a placeholder or a column) held by a group the user (`?`) is a member of. */
const groupGrant = (project: string) =>
  `SELECT 1 AS found FROM group_members m JOIN project_grants g ON g.group_id = m.group_id WHERE m.user_id = ? AND g.project_id = ${project}`;

/** Whether any grant of the project reaches the user: at most one row read. */
export async function hasGrantIn(manager: EntityManager, projectId: string, userId: string): Promise<boolean> {
  const rows = (await manager.query(`${ownGrant('?')} UNION ALL ${groupGrant('?')} LIMIT 1`, [projectId, userId, userId, projectId])) as unknown[];
  return rows.length > 0;
}

/**
 * The API application whose resource URI is this one (RFC 8707), if any, and whether it admits the user: it is open
 * to everyone, or a grant of its project reaches the user as in hasGrantIn (docs/product-rules.md, "Application
 * access"). One statement, read on use, so a removed grant counts at once.
 */
export async function apiResourceAdmitting(
  manager: EntityManager,
  resourceUri: string,
  userId: string,
): Promise<(ApiResourceRow & { admitted: boolean }) | undefined> {
  const rows = (await manager.query(
    `SELECT ${API_RESOURCE_COLUMNS},
       CASE WHEN a.access <> 'granted' OR EXISTS (${ownGrant('a.project_id')}) OR EXISTS (${groupGrant('a.project_id')}) THEN 1 ELSE 0 END AS admitted
     FROM applications a WHERE a.resource_uri = ? AND a.kind = 'api'`,
    [userId, userId, resourceUri],
  )) as (ApiResourceRow & { admitted: number | string })[];
  const row = rows[0];
  return row && { ...row, admitted: Number(row.admitted) === 1 };
}

/**
 * The names of the projects the group holds a grant of, sorted. A locking read (through `ix_project_grants_group`):
 * a grant of the group committed meanwhile is seen, and one being added waits for the membership change that asked.
 */
export async function projectsGrantedToGroup(manager: EntityManager, groupId: string): Promise<string[]> {
  const rows = (await manager.query(`SELECT p.name FROM project_grants g JOIN projects p ON p.id = g.project_id WHERE g.group_id = ?${lockingRead(manager)}`, [
    groupId,
  ])) as { name: string }[];
  return rows.map((r) => r.name).sort();
}

/** For each group of the organization that holds a grant, the projects it holds one of, by name. */
export async function projectsGrantedToGroupsOf(manager: EntityManager, orgId: string): Promise<Map<string, { id: string; name: string }[]>> {
  const rows = (await manager.query(
    `SELECT g.group_id, p.id, p.name FROM project_grants g JOIN projects p ON p.id = g.project_id
      WHERE g.org_id = ? AND g.group_id IS NOT NULL ORDER BY p.name, p.id`,
    [orgId],
  )) as { group_id: string; id: string; name: string }[];
  const byGroup = new Map<string, { id: string; name: string }[]>();
  for (const row of rows) {
    const list = byGroup.get(row.group_id) ?? [];
    list.push({ id: row.id, name: row.name });
    byGroup.set(row.group_id, list);
  }
  return byGroup;
}

export interface EnterableAppRow {
  id: string;
  name: string;
  kind: 'oidc' | 'saml';
  client_id: string;
  project_id: string;
  home_url: string;
  access: ApplicationAccessMode;
}

/** The organization's OIDC and SAML applications with a home URL that the user may enter, by name. */
export async function enterableApps(manager: EntityManager, orgId: string, userId: string): Promise<EnterableAppRow[]> {
  return (await manager.query(
    `SELECT a.id, a.name, a.kind, a.client_id, a.project_id, a.home_url, a.access FROM applications a
     WHERE a.org_id = ? AND a.kind IN ('oidc', 'saml') AND a.home_url IS NOT NULL
       AND (a.access = 'everyone' OR a.project_id IN (
         SELECT g.project_id FROM project_grants g WHERE g.user_id = ?
         UNION
         SELECT g.project_id FROM group_members m JOIN project_grants g ON g.group_id = m.group_id WHERE m.user_id = ?))
     ORDER BY a.name, a.id`,
    [orgId, userId, userId],
  )) as EnterableAppRow[];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
