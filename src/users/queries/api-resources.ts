import type { DataSource } from 'typeorm';
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

/**
 * The API application whose resource URI is exactly this one (unique in the instance), if any. Read on every
 * use, never cached: a changed or removed resource counts at once (docs/agents.md, "Resources").
 */
export async function apiResourceByUri(dataSource: DataSource, resourceUri: string): Promise<ApiResourceRow | undefined> {
  const rows = await statementsOf(dataSource).rows<ApiResourceRow>(
    `SELECT a.org_id, a.client_id, a.access_token_type, a.resource_scopes, a.name, a.project_id, a.access FROM applications a WHERE a.resource_uri = ? AND a.kind = 'api'`,
    [resourceUri],
  );
  return rows[0];
}
