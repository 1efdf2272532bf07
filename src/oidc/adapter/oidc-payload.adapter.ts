import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { statementsOf } from '../../common/database/statements.js';
import type { Statements } from '../../common/database/statements.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { keyedUpdate, rowInsert } from '../../common/database/row-batches.js';
import type { RowStatement } from '../../common/database/row-batches.js';
import { accountJoin, tokenUserJoin } from '../../users/queries/oidc-accounts.js';
import { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { jwtForHandle } from '../tokens/structured-token.rewrite.js';
import type { AuditedRemoval } from './audited-removal.js';
import { forgetRows, requestLookups } from './request-lookups.js';
import type { PayloadRow, RequestLookups } from './request-lookups.js';
import type { AccountRow } from '../../users/queries/oidc-accounts.js';
import { millis } from '../../common/database/column-values.js';
import { dialectOf } from './sql.js';
import { tiedGrantsDeletion } from './exchange-ties.js';
import { DEVICE_CODE, DEVICE_CODE_ROW_GRACE_MS, deviceCodeRowKey, deviceCodeRowHandle, userCodeHash } from './device-codes.js';

/** Models whose tokens may be JWTs (RFC 9068), looked up by their verified `jti`. */
const JWT_MODELS = new Set(['AccessToken', 'ClientCredentials']);
/** The models oidc-provider tries one after the other for a token of unknown type (introspection, revocation). */
const TOKEN_MODELS = ['AccessToken', 'ClientCredentials', 'RefreshToken'];
const TOKEN_ROUTES = new Set(['introspection', 'revocation']);

const COLUMNS = 'model, payload, expires_at, consumed_at';

const UPSERT_HEAD = 'INSERT INTO oidc_payloads (model, id_hash, payload, grant_id, account_id, client_id, uid, user_code, expires_at, consumed_at) VALUES';
const UPSERT_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)';
/** One statement for every model: on MySQL/MariaDB the rows of concurrent grants are written together (row-batches.ts). */
const UPSERT = {
  sqlite: rowInsert(
    UPSERT_HEAD,
    UPSERT_ROW,
    'ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = COALESCE(excluded.grant_id, oidc_payloads.grant_id), account_id = excluded.account_id, client_id = excluded.client_id, uid = excluded.uid, user_code = COALESCE(excluded.user_code, oidc_payloads.user_code), expires_at = excluded.expires_at, consumed_at = NULL',
  ),
  mysql: rowInsert(
    UPSERT_HEAD,
    UPSERT_ROW,
    'ON DUPLICATE KEY UPDATE payload = VALUES(payload), grant_id = COALESCE(VALUES(grant_id), grant_id), account_id = VALUES(account_id), client_id = VALUES(client_id), uid = VALUES(uid), user_code = COALESCE(VALUES(user_code), user_code), expires_at = VALUES(expires_at), consumed_at = NULL',
  ),
};

/**
 * The token's user (its account, or the machine user that is its client), read with the token for the
 * introspection policy: state on use and the parts of `username` (docs/product-rules.md, "OpenID Connect and OAuth").
 * The row by its primary key, the user by the indexed `account_id` column that `upsert` fills (never by
 * parsing the payload). The user's columns and joins come from the users domain, which owns those tables.
 */
const TOKEN_USER = tokenUserJoin('p.account_id');
const TOKEN_WITH_USER_SQL = `SELECT p.model, p.payload, p.expires_at, p.consumed_at, p.account_id, ${TOKEN_USER.columns}
    FROM oidc_payloads p
    ${TOKEN_USER.joins}
    WHERE p.id_hash = ? AND p.model IN (?, ?, ?)`;

/**
 * Where oidc-provider calls `findAccount` for a token's user right after finding the token, with no write
 * between (userinfo: AccessToken, Grant, account; the refresh grant: RefreshToken, Grant, account): the
 * model and its route. There the token's row is read with its account in one statement, by the indexed
 * `account_id` column, and `findAccount` uses that account of this request (account.finder.ts); user
 * state is still read on use, with the token.
 */
const ACCOUNT_FOLLOWS: Record<string, string> = { AccessToken: 'userinfo', RefreshToken: 'token' };
const withAccountSql = (account: {
  columns: string;
  joins: string;
}) => `SELECT p.model, p.payload, p.expires_at, p.consumed_at, p.account_id, ${account.columns}
    FROM oidc_payloads p
    ${account.joins}
    WHERE p.model = ? AND p.id_hash = ?`;
const TOKEN_WITH_ACCOUNT_SQL = withAccountSql(accountJoin('p.account_id'));
/** The refresh grant also checks the organization's multi-factor policy (refresh-second-factor.ts): read with them. */
const REFRESH_WITH_ACCOUNT_SQL = withAccountSql(accountJoin('p.account_id', { loginMfa: true }));

/** The statements that read a token with its user (for the query-plan test: index searches, no JSON parsing). */
export const TOKEN_WITH_USER_STATEMENTS = {
  introspection: TOKEN_WITH_USER_SQL,
  withAccount: TOKEN_WITH_ACCOUNT_SQL,
  refresh: REFRESH_WITH_ACCOUNT_SQL,
} as const;

/**
 * A model's consumption (a refresh token rotated, a code redeemed), one statement per model so that on MySQL/MariaDB
 * the consumptions of concurrent requests go as one `UPDATE … IN (…)` and one commit, as their new rows do.
 */
const CONSUMPTIONS = new Map<string, RowStatement>();
function consumption(model: string): RowStatement {
  let statement = CONSUMPTIONS.get(model);
  if (!statement) {
    statement = keyedUpdate('UPDATE oidc_payloads SET consumed_at = ? WHERE model = ?', 'id_hash', () => [Date.now(), model]);
    CONSUMPTIONS.set(model, statement);
  }
  return statement;
}

/**
 * oidc-provider's storage interface over one table. Ids of tokens, codes and sessions are bearer
 * secrets, so rows are keyed by their keyed hash and the payload is stored without `jti` (docs/product-rules.md, "OpenID Connect and OAuth");
 * `find` puts the id back, since the caller had to present it. Every process reads the same rows, so
 * sessions, grants and tokens survive restarts and work across WORKERS and hosts (docs/product-rules.md, "Running it").
 * Each method is one parameterised statement; writes go through the UnitOfWork (group commit: SQLite
 * transactions, MySQL multi-row inserts), and nothing is cached across requests.
 */
export class OidcPayloadAdapter implements Adapter {
  private readonly upsertRow: RowStatement;
  private readonly sql: Statements;

  constructor(
    private readonly model: string,
    dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly uow: UnitOfWork,
    private readonly jwtIds?: JwtTokenIds,
    private readonly audit?: AuditedRemoval,
    /** Runs before a device code's approval is written (device/session-before-approval.ts). */
    private readonly beforeDeviceApproval?: () => Promise<void>,
  ) {
    this.upsertRow = dialectOf(dataSource) === 'sqlite' ? UPSERT.sqlite : UPSERT.mysql;
    this.sql = statementsOf(dataSource);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    // A device's user code is a secret like its device code: only its keyed hash is stored (device-codes.ts).
    const { jti: _jti, userCode, ...stored } = payload;
    const device = this.model === DEVICE_CODE;
    const key = device ? deviceCodeRowKey(id, this.hasher) : this.hasher.hash(id);
    if (key === undefined) return;
    if (device && payload.accountId !== undefined) await this.beforeDeviceApproval?.();
    forgetRows();
    await this.uow.writeRow(this.upsertRow, [
      this.model,
      key,
      JSON.stringify(stored),
      payload.grantId ?? null,
      payload.accountId ?? (this.model === 'ClientCredentials' ? payload.clientId : undefined) ?? null,
      this.model === 'Session' ? null : (payload.clientId ?? null),
      payload.uid ?? null,
      typeof userCode === 'string' ? userCodeHash(userCode, this.hasher) : null,
      expiresIn ? Date.now() + expiresIn * 1000 + (device ? DEVICE_CODE_ROW_GRACE_MS : 0) : null,
    ]);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = await this.keyOf(id);
    if (!key) return undefined;
    const found = await this.rowOf(key);
    if (!found) return undefined;
    const payload = this.toPayload(found.row, id);
    if (payload && found.users) rememberUser(found.users, payload, found.row);
    return payload;
  }

  /**
   * Introspection and revocation without a type hint look a token up as AccessToken, ClientCredentials
   * and RefreshToken at once: one statement fetches the rows of all three for this request, with the
   * token's user for the introspection policy (request-lookups.ts).
   */
  private async rowOf(key: string): Promise<{ row: PayloadRow; users?: RequestLookups['users'] } | undefined> {
    const route: string | undefined = Provider.ctx?.oidc?.route;
    if (route !== undefined && ACCOUNT_FOLLOWS[this.model] === route) return this.rowWithAccount(key);
    const shared = route !== undefined && TOKEN_MODELS.includes(this.model) && TOKEN_ROUTES.has(route) ? requestLookups() : undefined;
    if (!shared) {
      const [row] = await this.sql.rows<PayloadRow>(`SELECT ${COLUMNS} FROM oidc_payloads WHERE model = ? AND id_hash = ?`, [this.model, key]);
      return row && { row };
    }
    let rows = shared.rows.get(key);
    if (!rows) {
      rows = this.sql.rows<PayloadRow>(TOKEN_WITH_USER_SQL, [key, ...TOKEN_MODELS]);
      shared.rows.set(key, rows);
    }
    const row = (await rows).find((r) => r.model === this.model);
    return row && { row, users: shared.users };
  }

  /** The token's row and its account (ACCOUNT_FOLLOWS), the account kept for this request's `findAccount`. */
  private async rowWithAccount(key: string): Promise<{ row: PayloadRow } | undefined> {
    const [row] = await this.sql.rows<PayloadRow & AccountRow>(this.model === 'RefreshToken' ? REFRESH_WITH_ACCOUNT_SQL : TOKEN_WITH_ACCOUNT_SQL, [
      this.model,
      key,
    ]);
    if (!row) return undefined;
    if (row.account_id) requestLookups()?.accounts.set(row.account_id, row.id == null ? null : row);
    return { row };
  }

  /**
   * The row key of an id: its keyed hash; for a JWT access token, that of its verified `jti`. Computed
   * once per request and value (oidc-provider looks a token up under several models, and an opaque
   * token's key is the same under each of them).
   */
  private keyOf(id: string): Promise<string | undefined> {
    if (this.model === DEVICE_CODE) return Promise.resolve(deviceCodeRowKey(id, this.hasher));
    const jwt = this.jwtIds !== undefined && JWT_MODELS.has(this.model) ? (JwtTokenIds.looksLikeJwt(id) ? id : jwtForHandle(Provider.ctx?.req, id)) : undefined;
    const memo = `${jwt !== undefined ? 'jwt' : 'id'}:${id}`;
    const keys = requestLookups()?.keys;
    let key = keys?.get(memo);
    if (!key) {
      key = jwt !== undefined ? this.jwtKey(jwt) : Promise.resolve(this.hasher.hash(id));
      keys?.set(memo, key);
    }
    return key;
  }

  private async jwtKey(jwt: string): Promise<string | undefined> {
    const jti = await this.jwtIds!.jtiOf(jwt);
    return jti === undefined ? undefined : this.hasher.hash(jti);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const rows = await this.sql.rows<PayloadRow>(`SELECT ${COLUMNS} FROM oidc_payloads WHERE model = ? AND uid = ? LIMIT 1`, [this.model, uid]);
    // The session id is only known through the cookie; a session found by uid is used by its uid only.
    return rows[0] ? this.toPayload(rows[0], undefined) : undefined;
  }

  /**
   * The device code a user typed the user code of (RFC 8628 §3.3), by the user code's keyed hash (an index search).
   * The device code itself is known only as its hash, so the payload carries a handle of its row instead
   * (device-codes.ts): oidc-provider saves the approval under that id, and `upsert` updates this same row — the one
   * the device polls with its device code.
   */
  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const rows = await this.sql.rows<PayloadRow & { id_hash: string }>(
      `SELECT id_hash, ${COLUMNS} FROM oidc_payloads WHERE model = ? AND user_code = ? LIMIT 1`,
      [this.model, userCodeHash(userCode, this.hasher)],
    );
    const payload = rows[0] ? this.toPayload(rows[0], deviceCodeRowHandle(rows[0].id_hash)) : undefined;
    return payload && { ...payload, userCode };
  }

  async consume(id: string): Promise<void> {
    const key = await this.keyOf(id);
    forgetRows();
    if (key) await this.uow.writeRow(consumption(this.model), [key]);
  }

  async destroy(id: string): Promise<void> {
    const key = await this.keyOf(id);
    forgetRows();
    if (!key) return;
    const route: string | undefined = Provider.ctx?.oidc?.route;
    const removal = this.audit?.removalFor(this.model, route);
    if (removal) return this.audit!.remove(removal, this.model, key, id, route ?? '');
    await this.uow.write('DELETE FROM oidc_payloads WHERE model = ? AND id_hash = ?', [this.model, key]);
  }

  /** Revokes every token and code of a grant (RFC 6749 §10.5 code reuse, refresh token reuse, logout). */
  async revokeByGrantId(grantId: string): Promise<void> {
    if (revokingOneAccessToken()) return;
    forgetRows();
    await this.uow.write('DELETE FROM oidc_payloads WHERE model = ? AND grant_id = ?', [this.model, grantId]);
    // Every revocation of a grant revokes its access tokens, so that model's call also ends the grants
    // exchanged from it (exchange-ties.ts); their tokens are refused wherever they are used.
    if (this.model === 'AccessToken') {
      const tied = tiedGrantsDeletion([grantId]);
      await this.uow.write(tied.sql, tied.parameters);
    }
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

/**
 * At the revocation endpoint oidc-provider follows an access token's own removal with `revoke(ctx,
 * grantId)` (lib/helpers/revoke.js), which calls `revokeByGrantId` of every token and code model of the
 * grant: its refresh token, codes and other access tokens. The `revokeGrantPolicy` hook only decides
 * whether the Grant record goes too (its default keeps it for an access token), not those calls. RFC
 * 7009 §2.1 leaves them to the server ("MAY"); here revoking an access token revokes only it (SECURITY.md,
 * "Logout and revocation"), so they are skipped for it. A refresh token's revocation still takes the
 * grant's access tokens with it; logout and user deactivation delete rows directly and are unaffected.
 */
function revokingOneAccessToken(): boolean {
  const oidc = Provider.ctx?.oidc;
  return oidc?.route === 'revocation' && Boolean(oidc.entities?.AccessToken) && !oidc.entities?.RefreshToken;
}

/**
 * The user read with a token row, under the id the introspection policy asks for (accountId, else
 * clientId): only when that is the row's `account_id` the user was joined on; otherwise the policy reads it.
 */
function rememberUser(users: RequestLookups['users'], payload: AdapterPayload, row: PayloadRow): void {
  const userId = payload.accountId ?? payload.clientId;
  if (!userId || row.account_id !== userId) return;
  users.set(userId, row.user_state == null ? null : { state: row.user_state, userName: row.user_name ?? '', primaryDomain: row.primary_domain ?? null });
}
