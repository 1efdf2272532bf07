import type { DataSource } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';
import { statementsOf } from '../../common/database/statements.js';
import { CLIENT_CACHE_MS } from '../adapter/client.store.js';
import { API_AUDIENCE_SCOPE } from '../provider/scopes.js';

export { API_AUDIENCE_SCOPE };

/** Resource indicator (RFC 8707) and audience value of the Portcullis admin, management and SCIM APIs. */
export const API_AUDIENCE = 'urn:portcullis:api';
const PROJECT_SCOPE = /^urn:portcullis:iam:org:project:id:([^:\s]+):aud$/;

/**
 * Whether a client may hold the Portcullis API audience in tokens of users: machine users (their own
 * tokens) and applications registered with apiAccess, which only an IAM_OWNER can set.
 */
export function apiAudienceAllowed(client: { portcullis_kind?: string; portcullis_api_access?: boolean }): boolean {
  return client.portcullis_kind === 'machine' || client.portcullis_api_access === true;
}

/** Projects requested through `urn:portcullis:iam:org:project:id:{projectId}:aud` scopes. */
export function requestedProjects(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').flatMap((s) => PROJECT_SCOPE.exec(s)?.[1] ?? []);
}

/** Whether a scope value is one of the audience scopes of DESIGN §5 (allowed beyond the OIDC ones). */
export function isAudienceScope(scope: string): boolean {
  return scope === API_AUDIENCE_SCOPE || PROJECT_SCOPE.test(scope);
}

/**
 * DESIGN §5: the audience of a token is the project id of its client and the client ids of every
 * application in that project, plus requested projects (and the API when asked for). Machine users
 * (no project) always get the API.
 *
 * It depends on application registrations only, so a process reuses it for CLIENT_CACHE_MS like the
 * registrations themselves (client.store.ts): an application added to or removed from a project
 * counts in every process within that time. Token validity and user state are never cached.
 */
export async function audienceOf(dataSource: DataSource, clientId: string, scope: string | undefined): Promise<string[]> {
  const key = `${clientId} ${scope ?? ''}`;
  const now = Date.now();
  const cached = audiences.get(key);
  if (cached && now - cached.at < CLIENT_CACHE_MS) return cached.audience;
  const [sql, parameters] = audienceQuery(clientId, scope);
  const audience = audienceFrom(await statementsOf(dataSource).rows<AudienceRow>(sql, parameters), scope);
  if (audiences.size >= AUDIENCE_CACHE_MAX) audiences.clear();
  audiences.set(key, { at: now, audience });
  return audience;
}

const audiences = new Map<string, { at: number; audience: string[] }>();
const AUDIENCE_CACHE_MAX = 10_000;

interface AudienceRow {
  client_id: string;
  project_id: string;
  own: unknown;
  api_access: unknown;
}

/**
 * One statement: every application of the client's project (the client's own row names that project)
 * and of the requested projects.
 */
function audienceQuery(clientId: string, scope: string | undefined): [string, unknown[]] {
  const requested = requestedProjects(scope);
  return [
    `SELECT m.client_id, m.project_id, CASE WHEN m.client_id = ? THEN 1 ELSE 0 END AS own, m.api_access FROM applications m
      WHERE m.project_id IN (SELECT a.project_id FROM applications a WHERE a.client_id = ?)${
        requested.length > 0
          ? ` OR (m.project_id IN (${placeholders(requested.length)}) AND m.org_id = COALESCE((SELECT a.org_id FROM applications a WHERE a.client_id = ?), (SELECT u.org_id FROM users u WHERE u.id = ?)))`
          : ''
      }`,
    [clientId, clientId, ...requested, ...(requested.length > 0 ? [clientId, clientId] : [])],
  ];
}

/**
 * Machine users (no application row) always get the API; an application's tokens only when it has
 * apiAccess and the scope asks for it. Requested projects count only within the client's organization
 * (the query returns no other), so a scope naming another organization's project adds nothing.
 */
function audienceFrom(rows: AudienceRow[], scope: string | undefined): string[] {
  const own = rows.find((r) => Number(r.own) === 1);
  const audience = new Set<string>();
  const found = new Set(rows.map((r) => r.project_id));
  const projects = [...(own ? [own.project_id] : []), ...requestedProjects(scope).filter((p) => found.has(p))];
  if (!own) audience.add(API_AUDIENCE);
  if (own && Number(own.api_access) === 1 && (scope ?? '').split(' ').includes(API_AUDIENCE_SCOPE)) audience.add(API_AUDIENCE);
  for (const p of projects) audience.add(p);
  for (const r of rows) audience.add(r.client_id);
  return [...audience];
}

/** The token user's state and login name parts, read on use (never cached). */
export interface TokenUser {
  state: string;
  userName: string;
  primaryDomain: string | null;
}

/** A token's user, when it was not read together with the token (see typeorm.adapter.ts). */
export async function tokenUser(dataSource: DataSource, userId: string): Promise<TokenUser | null> {
  const [row] = await statementsOf(dataSource).rows<{ state: string; user_name: string; primary_domain: string | null }>(
    'SELECT u.state, u.user_name, o.primary_domain FROM users u LEFT JOIN organizations o ON o.id = u.org_id WHERE u.id = ?',
    [userId],
  );
  return row ? { state: row.state, userName: row.user_name, primaryDomain: row.primary_domain ?? null } : null;
}

type Token = { clientId: string; scope?: string; aud?: string | string[] };

/** The audience of an issued token: what oidc-provider recorded (its resource) plus DESIGN §5's. */
export async function tokenAudience(dataSource: DataSource, token: Token): Promise<string[]> {
  return [...new Set([...[token.aud ?? []].flat(), ...(await audienceOf(dataSource, token.clientId, token.scope))])];
}

/** Which of these project ids are projects of the organization. */
export async function projectsOfOrganization(dataSource: DataSource, orgId: string, projectIds: string[]): Promise<Set<string>> {
  const rows = await statementsOf(dataSource).rows<{ id: string }>(`SELECT id FROM projects WHERE org_id = ? AND id IN (${placeholders(projectIds.length)})`, [orgId, ...projectIds]);
  return new Set(rows.map((r) => r.id));
}

const apiClients = new Map<string, { at: number; allowed: boolean }>();

/**
 * Whether tokens of this client may reach the Portcullis API: a machine user's (no application has its
 * id) or a first-party application's (apiAccess). Reused for CLIENT_CACHE_MS like registrations.
 */
export async function clientMayHoldApi(dataSource: DataSource, clientId: string): Promise<boolean> {
  const now = Date.now();
  const cached = apiClients.get(clientId);
  if (cached && now - cached.at < CLIENT_CACHE_MS) return cached.allowed;
  const [row] = await statementsOf(dataSource).rows<{ api_access: unknown }>('SELECT api_access FROM applications WHERE client_id = ?', [clientId]);
  const allowed = row === undefined || Number(row.api_access) === 1 || row.api_access === true;
  if (apiClients.size >= AUDIENCE_CACHE_MAX) apiClients.clear();
  apiClients.set(clientId, { at: now, allowed });
  return allowed;
}
