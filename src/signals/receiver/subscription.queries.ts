import type { EntityManager } from 'typeorm';

/** The SQL of `ssf_subscriptions` and `ssf_jtis_seen` (src/signals owns them; docs/architecture.md, "Data"). */

export interface SubscriptionRow {
  idpId: string;
  orgId: string;
  /** The transmitter's `issuer` (SSF 1.0 §7.1): every SET's `iss`, and the `iss` of its subjects. */
  issuer: string;
  /** This instance's client id at the transmitter: every SET's `aud`. */
  audience: string;
  jwksUri: string;
  configurationEndpoint: string;
  streamId: string;
  /** The keyed hash of the bearer token the transmitter sends with each push. */
  pushTokenHash: string;
  createdAt: number;
}

const COLUMNS = 'idp_id, org_id, issuer, audience, jwks_uri, configuration_endpoint, stream_id, push_token_hash, created_at';

function toRow(r: Record<string, unknown>): SubscriptionRow {
  return {
    idpId: String(r.idp_id),
    orgId: String(r.org_id),
    issuer: String(r.issuer),
    audience: String(r.audience),
    jwksUri: String(r.jwks_uri),
    configurationEndpoint: String(r.configuration_endpoint),
    streamId: String(r.stream_id),
    pushTokenHash: String(r.push_token_hash),
    createdAt: Number(r.created_at),
  };
}

export async function subscriptionOf(manager: EntityManager, idpId: string): Promise<SubscriptionRow | undefined> {
  const [row]: Record<string, unknown>[] = await manager.query(`SELECT ${COLUMNS} FROM ssf_subscriptions WHERE idp_id = ?`, [idpId]);
  return row && toRow(row);
}

export async function insertSubscription(manager: EntityManager, row: SubscriptionRow): Promise<void> {
  await manager.query(`INSERT INTO ssf_subscriptions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.idpId,
    row.orgId,
    row.issuer,
    row.audience,
    row.jwksUri,
    row.configurationEndpoint,
    row.streamId,
    row.pushTokenHash,
    row.createdAt,
  ]);
}

export async function deleteSubscription(manager: EntityManager, idpId: string): Promise<void> {
  await manager.query('DELETE FROM ssf_subscriptions WHERE idp_id = ?', [idpId]);
}

/**
 * Records a `jti` as used, once: false when it was already (a replay, in this process or another). The primary key
 * decides, so two processes given the same SET at once act on it once. Expired entries are dropped on the way.
 */
export async function firstUseOfJti(manager: EntityManager, jtiHash: string, idpId: string, expiresAt: number, now = Date.now()): Promise<boolean> {
  await manager.query('DELETE FROM ssf_jtis_seen WHERE expires_at < ?', [now]);
  const [seen]: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM ssf_jtis_seen WHERE jti_hash = ?', [jtiHash]);
  if (Number(seen.n) > 0) return false;
  await manager.query('INSERT INTO ssf_jtis_seen (jti_hash, idp_id, expires_at) VALUES (?, ?, ?)', [jtiHash, idpId, expiresAt]);
  return true;
}
