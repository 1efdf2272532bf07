/**
 * A minimal durable adapter for oidc-provider, for the durable peer of the OIDC benchmark:
 * exactly the library's documented adapter interface (upsert, find, findByUserCode, findByUid, consume,
 * destroy, revokeByGrantId; oidc-provider's example/my_adapter.js) over one better-sqlite3 table, one
 * row per payload. WAL with `synchronous = NORMAL`, as Portcullis runs SQLite
 * (src/common/database/data-source.ts): a commit survives a crash of the process, and a power loss once
 * a checkpoint has synced the WAL. No cache: every find reads the table, so the figure is what a
 * durable store costs the library, the anchor Portcullis's token figures are held to.
 */
import Database from 'better-sqlite3';
import type { Adapter, AdapterPayload } from 'oidc-provider';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS payloads (
    model TEXT NOT NULL,
    id TEXT NOT NULL,
    payload TEXT NOT NULL,
    grant_id TEXT,
    user_code TEXT,
    uid TEXT,
    expires_at INTEGER,
    consumed INTEGER,
    PRIMARY KEY (model, id)
  );
  -- Partial, as Portcullis's (most rows have no user code or uid): findByUserCode, findByUid, revokeByGrantId.
  CREATE INDEX IF NOT EXISTS payloads_grant_id ON payloads (grant_id) WHERE grant_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS payloads_user_code ON payloads (user_code) WHERE user_code IS NOT NULL;
  CREATE INDEX IF NOT EXISTS payloads_uid ON payloads (uid) WHERE uid IS NOT NULL;
`;

interface Row {
  payload: string;
  consumed: number | null;
}

/** oidc-provider's `adapter` option: a factory giving each model's adapter, all over one database file. */
export function sqliteAdapter(file: string): (model: string) => Adapter {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  // Unexpired rows only: the interface wants a falsy answer for what has expired.
  const live = 'AND (expires_at IS NULL OR expires_at > ?)';
  const sql = {
    upsert: db.prepare(`INSERT INTO payloads (model, id, payload, grant_id, user_code, uid, expires_at, consumed) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
      ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
        uid = excluded.uid, expires_at = excluded.expires_at, consumed = NULL`),
    find: db.prepare<[string, string, number], Row>(`SELECT payload, consumed FROM payloads WHERE model = ? AND id = ? ${live}`),
    findByUserCode: db.prepare<[string, string, number], Row>(`SELECT payload, consumed FROM payloads WHERE model = ? AND user_code = ? ${live}`),
    findByUid: db.prepare<[string, string, number], Row>(`SELECT payload, consumed FROM payloads WHERE model = ? AND uid = ? ${live}`),
    consume: db.prepare('UPDATE payloads SET consumed = ? WHERE model = ? AND id = ?'),
    destroy: db.prepare('DELETE FROM payloads WHERE model = ? AND id = ?'),
    revokeByGrantId: db.prepare('DELETE FROM payloads WHERE model = ? AND grant_id = ?'),
  };
  // `consumed` is a timestamp in seconds, as the memory adapter sets it (any truthy value would do).
  const payloadOf = (row: Row | undefined): AdapterPayload | undefined =>
    row && { ...(JSON.parse(row.payload) as AdapterPayload), ...(row.consumed ? { consumed: row.consumed } : {}) };

  return (model) => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : null;
      sql.upsert.run(model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresAt);
    },
    async find(id) {
      return payloadOf(sql.find.get(model, id, Date.now()));
    },
    async findByUserCode(userCode) {
      return payloadOf(sql.findByUserCode.get(model, userCode, Date.now()));
    },
    async findByUid(uid) {
      return payloadOf(sql.findByUid.get(model, uid, Date.now()));
    },
    async consume(id) {
      sql.consume.run(Math.floor(Date.now() / 1000), model, id);
    },
    async destroy(id) {
      sql.destroy.run(model, id);
    },
    async revokeByGrantId(grantId) {
      sql.revokeByGrantId.run(model, grantId);
    },
  });
}
