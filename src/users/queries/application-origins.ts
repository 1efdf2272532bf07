import type { EntityManager } from 'typeorm';
import { json } from '../../common/database/column-values.js';

/**
 * The web origins (RFC 6454) of the redirect URIs of an organization's OIDC applications: where its applications
 * live, for a setting that may only send a browser to one of them. A redirect URI without a web origin (a native
 * application's custom scheme) names none.
 */
export async function redirectOriginsOf(manager: EntityManager, orgId: string): Promise<string[]> {
  const rows = (await manager.query(`SELECT redirect_uris FROM applications WHERE org_id = ? AND kind = 'oidc'`, [orgId])) as { redirect_uris: unknown }[];
  const origins = rows.flatMap((row) => json<string[]>(row.redirect_uris, []).map(webOrigin));
  return [...new Set(origins.filter((origin): origin is string => origin !== undefined))];
}

function webOrigin(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
