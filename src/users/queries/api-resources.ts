import type { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';

/** An API application as a resource server (RFC 8707): what a token for its resource indicator needs. */
export interface ApiResourceRow {
  org_id: string;
  client_id: string;
  access_token_type: string;
  resource_scopes: unknown;
  /** What a person is shown on the consent page (docs/agents.md, "Consent and connected agents"). */
  name: string;
  project_id: string;
  /** Who may obtain its tokens (docs/product-rules.md, "Application access"). */
  access: string;
}

/** The columns of an ApiResourceRow, of `applications a`. */
export const API_RESOURCE_COLUMNS = 'a.org_id, a.client_id, a.access_token_type, a.resource_scopes, a.name, a.project_id, a.access';

/**
 * The API application whose resource URI is exactly this one (unique in the instance), if any. Read on every
 * use, never cached: a changed or removed resource counts at once (docs/agents.md, "Resources").
 */
export async function apiResourceByUri(dataSource: DataSource, resourceUri: string): Promise<ApiResourceRow | undefined> {
  const rows = await statementsOf(dataSource).rows<ApiResourceRow>(
    `SELECT ${API_RESOURCE_COLUMNS} FROM applications a WHERE a.resource_uri = ? AND a.kind = 'api'`,
    [resourceUri],
  );
  return rows[0];
}

/** An API application that admits only granted users (docs/application-access.md, "Resources of a restricted API application"). */
export interface RestrictedApiRow {
  id: string;
  name: string;
  project_id: string;
  resource_uri: string | null;
}

/**
 * The API applications with `access: "granted"` that an audience names: by their resource URI, or by their project
 * (a token for the project is good at its API applications, docs/product-rules.md "OpenID Connect and OAuth"). Read
 * on every use, in the caller's transaction when it has one.
 */
export async function restrictedApisNamedBy(manager: EntityManager, audience: readonly string[]): Promise<RestrictedApiRow[]> {
  const values = [...new Set(audience)].filter((v) => v !== '');
  if (values.length === 0) return [];
  const marks = values.map(() => '?').join(', ');
  return (await manager.query(
    `SELECT a.id, a.name, a.project_id, a.resource_uri FROM applications a
     WHERE a.kind = 'api' AND a.access = 'granted' AND (a.resource_uri IN (${marks}) OR a.project_id IN (${marks}))
     ORDER BY a.id`,
    [...values, ...values],
  )) as RestrictedApiRow[];
}

/** The API application whose resource URI this is, read in the caller's transaction. */
export async function apiResourceIn(manager: EntityManager, resourceUri: string): Promise<ApiResourceRow | undefined> {
  const rows = (await manager.query(`SELECT ${API_RESOURCE_COLUMNS} FROM applications a WHERE a.resource_uri = ? AND a.kind = 'api'`, [
    resourceUri,
  ])) as ApiResourceRow[];
  return rows[0];
}
