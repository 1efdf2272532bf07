import type { DataSource } from 'typeorm';
import { applicationAudienceRows } from '../../users/queries/application-audience.js';
import type { ApplicationAudienceRow } from '../../users/queries/application-audience.js';
import { tokenUserRow } from '../../users/queries/oidc-accounts.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';
import { projectsEntered } from '../../users/project-access/project-entry.js';
import { CLIENT_CACHE_MS, clientKindById } from '../adapter/client.store.js';
import { API_AUDIENCE_SCOPE } from '../provider/scopes.js';
import { clientKindOf, mayHoldApiAudience } from '../../login/client-kind.js';
import type { ClientKind, KindedClient } from '../../login/client-kind.js';

export { API_AUDIENCE_SCOPE };

/** Resource indicator (RFC 8707) and audience value of the Portcullis admin, management and SCIM APIs. */
export const API_AUDIENCE = 'urn:portcullis:api';
const PROJECT_SCOPE = /^urn:portcullis:iam:org:project:id:([^:\s]+):aud$/;

/**
 * Whether a client may hold the Portcullis API audience (SECURITY.md, "an application gets no more than its owner"):
 * machine users (their own tokens) and applications registered with apiAccess, which only an IAM_OWNER can set. A
 * client that registered itself (docs/agents.md) never does, whatever its metadata says.
 */
export function apiAudienceAllowed(client: KindedClient): boolean {
  return mayHoldApiAudience(clientKindOf(client));
}

/** Projects requested through `urn:portcullis:iam:org:project:id:{projectId}:aud` scopes. */
export function requestedProjects(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').flatMap((s) => PROJECT_SCOPE.exec(s)?.[1] ?? []);
}

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": the audience of a token is the project id of its client and the client ids of every
 * application in that project, plus requested projects the token's user may enter (and the API when asked for).
 * Machine users (no project) always get the API.
 *
 * The part that depends on application registrations only is reused for CLIENT_CACHE_MS like the registrations
 * themselves (client.store.ts): an application added to or removed from a project counts in every process within
 * that time. Whether the user may enter a requested project, token validity and user state are read on use.
 */
export async function audienceOf(dataSource: DataSource, clientId: string, scope: string | undefined, userId?: string): Promise<string[]> {
  const computed = await clientAudience(dataSource, clientId, scope);
  return audienceFor(computed, await enteredProjects(dataSource, computed, clientId, userId));
}

/** The computed audience, and whether the client may hold the Portcullis API at all (see tokenAudience). */
async function clientAudience(dataSource: DataSource, clientId: string, scope: string | undefined): Promise<ClientAudience> {
  const key = `${clientId} ${scope ?? ''}`;
  const now = Date.now();
  const cached = audiences.get(key);
  if (cached && now - cached.at < CLIENT_CACHE_MS) return cached.value;
  // What the client may get follows from what it is, one answer for every rule (clientKindOf), never from which rows
  // happen to exist: an id of no kind gets neither the API nor a machine user's projects.
  const kind = await clientKindById(dataSource, clientId);
  const rows = await applicationAudienceRows(dataSource, clientId, requestedProjects(scope));
  const value = audienceFrom(rows, scope, kind);
  if (audiences.size >= AUDIENCE_CACHE_MAX) audiences.clear();
  audiences.set(key, { at: now, value });
  return value;
}

/**
 * The requested projects a token of this client for this user counts (docs/application-access.md): those the user
 * may enter (users/project-access/project-entry.ts), read on use. A machine user's own token is subject to no
 * application's access; a token of no user and no machine user counts none.
 */
async function enteredProjects(dataSource: DataSource, computed: ClientAudience, clientId: string, userId: string | undefined): Promise<Set<string>> {
  const requested = [...computed.requested.keys()];
  if (requested.length === 0) return new Set();
  if (computed.machine && (userId === undefined || userId === clientId)) return new Set(requested);
  if (userId === undefined) return new Set();
  return projectsEntered(dataSource.manager, requested, userId);
}

function audienceFor(computed: ClientAudience, entered: Set<string>): string[] {
  const audience = new Set(computed.base);
  for (const [project, clientIds] of computed.requested) {
    if (!entered.has(project)) continue;
    audience.add(project);
    for (const id of clientIds) audience.add(id);
  }
  return [...audience];
}

/**
 * The project whose roles a token's `roles` claim lists (docs/application-access.md, "How roles reach the
 * application"): for a token of an API application's resource (RFC 8707), that application's project, whatever the
 * client (an agent of no project included); else the first project the scope requests
 * (`urn:portcullis:iam:org:project:id:{projectId}:aud`) that is in the token's audience — of the client's
 * organization and entered by the user — else the client's own project; none for a machine user.
 */
export async function rolesProjectOf(
  dataSource: DataSource,
  token: { clientId: string; scope: string | undefined; userId?: string; resource?: string },
): Promise<string | undefined> {
  if (token.resource !== undefined) return (await apiResourceByUri(dataSource, token.resource))?.project_id;
  const computed = await clientAudience(dataSource, token.clientId, token.scope);
  const entered = await enteredProjects(dataSource, computed, token.clientId, token.userId);
  return requestedProjects(token.scope).find((p) => p === computed.ownProject || entered.has(p)) ?? computed.ownProject;
}

interface ClientAudience {
  /** The API (when the client holds it), the client's project and the client ids of its applications. */
  base: string[];
  /** Requested projects of the client's organization other than its own, each with its applications' client ids. */
  requested: Map<string, string[]>;
  /** The client's own project; none for a machine user. */
  ownProject?: string;
  /** A machine user (clientKindOf). */
  machine: boolean;
  /** A machine user or a first-party application (apiAccess). */
  mayHoldApi: boolean;
}

const audiences = new Map<string, { at: number; value: ClientAudience }>();
const AUDIENCE_CACHE_MAX = 10_000;

/**
 * The API audience is decided by the client's kind, never a default (SECURITY.md, "an application gets no more than
 * its owner"): a machine user's own tokens always get it; a first-party application's (apiAccess) only when the scope
 * asks for it; any other client never. Requested projects count only within the client's organization (the query
 * returns no other), so a scope naming another organization's project adds nothing.
 */
function audienceFrom(rows: ApplicationAudienceRow[], scope: string | undefined, kind: ClientKind): ClientAudience {
  const own = rows.find((r) => Number(r.own) === 1);
  const machine = kind === 'machine';
  const mayHoldApi = mayHoldApiAudience(kind);
  const base = new Set<string>();
  if (machine || (mayHoldApi && (scope ?? '').split(' ').includes(API_AUDIENCE_SCOPE))) base.add(API_AUDIENCE);
  if (own) base.add(own.project_id);
  const requested = new Map<string, string[]>();
  const found = new Set(rows.map((r) => r.project_id));
  for (const p of requestedProjects(scope)) if (found.has(p) && p !== own?.project_id) requested.set(p, []);
  for (const r of rows) {
    if (r.project_id === own?.project_id) base.add(r.client_id);
    else requested.get(r.project_id)?.push(r.client_id);
  }
  return { base: [...base], requested, machine, mayHoldApi, ownProject: own?.project_id };
}

/** The token user's state and login name parts, read on use (never cached). */
export interface TokenUser {
  state: string;
  userName: string;
  primaryDomain: string | null;
}

/** A token's user, when it was not read together with the token (see oidc-payload.adapter.ts). */
export async function tokenUser(dataSource: DataSource, userId: string): Promise<TokenUser | null> {
  const row = await tokenUserRow(dataSource, userId);
  return row ? { state: row.state, userName: row.user_name, primaryDomain: row.primary_domain ?? null } : null;
}

/**
 * The API application's resource a token was issued for, if it was (docs/agents.md, "Resources"): a recorded audience
 * that is none of this instance's own (`urn:portcullis:…`). Such a token is for that resource alone (RFC 8707 §2,
 * RFC 9068 §3): the client's project and applications are not added to its audience.
 */
export function apiResourceOf(aud: unknown): string | undefined {
  const single = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud;
  return typeof single === 'string' && !single.startsWith('urn:portcullis:') ? single : undefined;
}

type Token = { clientId: string; accountId?: string; scope?: string; aud?: string | string[]; gty?: string; kind?: string };

/**
 * The audience of an issued token: what oidc-provider recorded (its resource) plus the computed one. The
 * Portcullis API counts only for a client that may hold it, so a token an ordinary application obtained
 * before apiAccess existed (`resource=urn:portcullis:api`) never reaches the API.
 */
export async function tokenAudience(dataSource: DataSource, token: Token): Promise<string[]> {
  const resource = apiResourceOf(token.aud);
  if (resource !== undefined) return [resource];
  const computed = await clientAudience(dataSource, token.clientId, token.scope);
  // An application's own token (client credentials: a Shared Signals receiver's `ssf.manage`, docs/signals.md) is for
  // the stream endpoints alone, by what its client is: no audience, so no API, project or application takes it.
  if (token.kind === 'ClientCredentials' && !computed.machine) return [];
  const recorded = [token.aud ?? []].flat().filter((aud) => computed.mayHoldApi || aud !== API_AUDIENCE);
  // An exchanged token was issued for exactly the audience it records (RFC 8693 §2.1).
  if (token.gty === 'token_exchange' && token.aud !== undefined) return recorded;
  const audience = audienceFor(computed, await enteredProjects(dataSource, computed, token.clientId, token.accountId));
  return [...new Set([...recorded, ...audience])];
}

/** Where userinfo keeps the resource of a token whose audience it sets aside for one request (extensions/userinfo-tokens.ts). */
export const SET_ASIDE_RESOURCE = Symbol('portcullis.setAsideResource');

/**
 * The API application's resource a token, code or refresh token is for (RFC 8707): an access token records it as
 * its audience, a code or refresh token as its `resource`.
 */
export function resourceOfToken(token: unknown): string | undefined {
  const t = token as { aud?: unknown; resource?: unknown; [SET_ASIDE_RESOURCE]?: unknown } | undefined;
  return apiResourceOf(t?.aud) ?? apiResourceOf(t?.resource) ?? apiResourceOf(t?.[SET_ASIDE_RESOURCE]);
}
