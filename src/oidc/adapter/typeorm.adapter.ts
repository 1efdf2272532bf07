import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { jwtForHandle } from '../tokens/structured-token.rewrite.js';
import type { AuditedRemoval } from './audited-removal.js';
import { dialectOf, millis } from './sql.js';

/** Models whose tokens may be JWTs (RFC 9068), looked up by their verified `jti`. */
const JWT_MODELS = new Set(['AccessToken', 'ClientCredentials']);
/** The models oidc-provider tries one after the other for a token of unknown type (introspection, revocation). */
const TOKEN_MODELS = ['AccessToken', 'ClientCredentials', 'RefreshToken'];
const TOKEN_ROUTES = new Set(['introspection', 'revocation']);

const COLUMNS = 'model, payload, expires_at, consumed_at';

interface PayloadRow {
  model: string;
  payload: string;
  expires_at: unknown;
  consumed_at: unknown;
}

/** Per request: token rows by id hash, and verified JWT ids by presented value (never shared between requests). */
const lookups = new WeakMap<object, { rows: Map<string, Promise<PayloadRow[]>>; keys: Map<string, Promise<string | undefined>> }>();

/** Writes in this request make the rows read before stale. */
function forgetRows(): void {
  const ctx = Provider.ctx;
  if (ctx) lookups.get(ctx)?.rows.clear();
}

function requestLookups() {
  const ctx = Provider.ctx;
  if (!ctx) return undefined;
  let found = lookups.get(ctx);
  if (!found) lookups.set(ctx, (found = { rows: new Map(), keys: new Map() }));
  return found;
}

/**
 * oidc-provider's storage interface over one table. Ids of tokens, codes and sessions are bearer
 * secrets, so rows are keyed by their keyed hash and the payload is stored without `jti` (DESIGN §5);
 * `find` puts the id back, since the caller had to present it. Every process reads the same rows, so
 * sessions, grants and tokens survive restarts and work across WORKERS and hosts (DESIGN §2).
 * Each method is one parameterised statement (see sql.ts); nothing is cached across requests.
 */
export class TypeOrmAdapter implements Adapter {
  private readonly upsertSql: string;

  constructor(
    private readonly model: string,
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly jwtIds?: JwtTokenIds,
    private readonly audit?: AuditedRemoval,
  ) {
    const insert = 'INSERT INTO oidc_payloads (model, id_hash, payload, grant_id, uid, user_code, expires_at, consumed_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)';
    this.upsertSql =
      dialectOf(dataSource) === 'sqlite'
        ? `${insert} ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at, consumed_at = NULL`
        : `${insert} ON DUPLICATE KEY UPDATE payload = VALUES(payload), grant_id = VALUES(grant_id), uid = VALUES(uid), user_code = VALUES(user_code), expires_at = VALUES(expires_at), consumed_at = NULL`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...stored } = payload;
    forgetRows();
    await this.dataSource.query(this.upsertSql, [
      this.model,
      this.hasher.hash(id),
      JSON.stringify(stored),
      payload.grantId ?? null,
      payload.uid ?? null,
      payload.userCode ?? null,
      expiresIn ? Date.now() + expiresIn * 1000 : null,
    ]);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = await this.keyOf(id);
    if (!key) return undefined;
    const row = await this.rowOf(key);
    return row ? this.toPayload(row, id) : undefined;
  }

  /**
   * Introspection and revocation without a type hint look a token up as AccessToken, ClientCredentials
   * and RefreshToken at once: one statement fetches the rows of all three for this request.
   */
  private async rowOf(key: string): Promise<PayloadRow | undefined> {
    const shared = TOKEN_MODELS.includes(this.model) && TOKEN_ROUTES.has(Provider.ctx?.oidc?.route) ? requestLookups() : undefined;
    if (!shared) {
      const rows: PayloadRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM oidc_payloads WHERE model = ? AND id_hash = ?`, [this.model, key]);
      return rows[0];
    }
    let rows = shared.rows.get(key);
    if (!rows) {
      rows = this.dataSource.query(`SELECT ${COLUMNS} FROM oidc_payloads WHERE id_hash = ? AND model IN (?, ?, ?)`, [key, ...TOKEN_MODELS]) as Promise<PayloadRow[]>;
      shared.rows.set(key, rows);
    }
    return (await rows).find((row) => row.model === this.model);
  }

  /** The row key of an id: its keyed hash; for a JWT access token, that of its verified `jti`. */
  private async keyOf(id: string): Promise<string | undefined> {
    if (this.jwtIds && JWT_MODELS.has(this.model)) {
      const jwt = JwtTokenIds.looksLikeJwt(id) ? id : jwtForHandle(Provider.ctx?.req, id);
      if (jwt !== undefined) {
        const keys = requestLookups()?.keys;
        let key = keys?.get(jwt);
        if (!key) {
          key = this.jwtIds.jtiOf(jwt).then((jti) => (jti === undefined ? undefined : this.hasher.hash(jti)));
          keys?.set(jwt, key);
        }
        return key;
      }
    }
    return this.hasher.hash(id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const rows: PayloadRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM oidc_payloads WHERE model = ? AND uid = ? LIMIT 1`, [this.model, uid]);
    // The session id is only known through the cookie; a session found by uid is used by its uid only.
    return rows[0] ? this.toPayload(rows[0], undefined) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const rows: PayloadRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM oidc_payloads WHERE model = ? AND user_code = ? LIMIT 1`, [this.model, userCode]);
    return rows[0] ? this.toPayload(rows[0], undefined) : undefined;
  }

  async consume(id: string): Promise<void> {
    const key = await this.keyOf(id);
    forgetRows();
    if (key) await this.dataSource.query('UPDATE oidc_payloads SET consumed_at = ? WHERE model = ? AND id_hash = ?', [Date.now(), this.model, key]);
  }

  async destroy(id: string): Promise<void> {
    const key = await this.keyOf(id);
    forgetRows();
    if (!key) return;
    const route: string | undefined = Provider.ctx?.oidc?.route;
    const removal = this.audit?.removalFor(this.model, route);
    if (removal) return this.audit!.remove(removal, this.model, key, id, route ?? '');
    await this.dataSource.query('DELETE FROM oidc_payloads WHERE model = ? AND id_hash = ?', [this.model, key]);
  }

  /** Revokes every token and code of a grant (RFC 6749 §10.5 code reuse, refresh token reuse, logout). */
  async revokeByGrantId(grantId: string): Promise<void> {
    forgetRows();
    await this.dataSource.query('DELETE FROM oidc_payloads WHERE model = ? AND grant_id = ?', [this.model, grantId]);
  }

  private toPayload(row: PayloadRow, id: string | undefined): AdapterPayload | undefined {
    const expiresAt = millis(row.expires_at);
    if (expiresAt !== null && expiresAt <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (id !== undefined) payload.jti = id;
    const consumedAt = millis(row.consumed_at);
    if (consumedAt !== null) payload.consumed = Math.floor(consumedAt / 1000);
    return payload;
  }
}

/** Deletes expired rows; run now and then by one timer per process (any process may do it). */
export async function purgeExpiredPayloads(dataSource: DataSource): Promise<void> {
  await dataSource.query('DELETE FROM oidc_payloads WHERE expires_at < ?', [Date.now() - 60_000]);
}
