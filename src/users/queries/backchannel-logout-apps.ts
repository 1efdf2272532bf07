import type { EntityManager } from 'typeorm';
import { flag, json } from '../../common/database/column-values.js';

/** An OIDC application registered for back-channel logout (OIDC Back-Channel Logout 1.0 §2.2; docs/oauth-profiles.md). */
export interface BackchannelLogoutApp {
  appId: string;
  orgId: string;
  clientId: string;
  logoutUri: string;
  sessionRequired: boolean;
  /** What the application's `sub` is made from (OIDC Core §8): the logout token names the user by it. */
  subjectType: string;
  redirectUris: string[];
}

const COLUMNS = 'id, org_id, client_id, backchannel_logout_uri, backchannel_logout_session_required, subject_type, redirect_uris';

/** Those of these clients that have a `backchannelLogoutUri`, in the caller's transaction. */
export async function backchannelLogoutAppsOf(manager: EntityManager, clientIds: string[]): Promise<BackchannelLogoutApp[]> {
  if (clientIds.length === 0) return [];
  const marks = clientIds.map(() => '?').join(', ');
  const rows = (await manager.query(
    `SELECT ${COLUMNS} FROM applications WHERE client_id IN (${marks}) AND kind = 'oidc' AND backchannel_logout_uri IS NOT NULL`,
    clientIds,
  )) as Record<string, unknown>[];
  return rows.map(appOf);
}

/** The application as it is registered now (a changed URI applies to logouts still owed), if it still wants them. */
export async function backchannelLogoutApp(manager: EntityManager, appId: string): Promise<BackchannelLogoutApp | undefined> {
  const [row] = (await manager.query(`SELECT ${COLUMNS} FROM applications WHERE id = ? AND backchannel_logout_uri IS NOT NULL`, [appId])) as Record<
    string,
    unknown
  >[];
  return row && appOf(row);
}

function appOf(row: Record<string, unknown>): BackchannelLogoutApp {
  return {
    appId: String(row.id),
    orgId: String(row.org_id),
    clientId: String(row.client_id),
    logoutUri: String(row.backchannel_logout_uri),
    sessionRequired: flag(row.backchannel_logout_session_required),
    subjectType: String(row.subject_type),
    redirectUris: json<string[]>(row.redirect_uris, []),
  };
}
