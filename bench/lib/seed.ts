/**
 * Fixture set-up, not what is measured: writes users and events straight into the service's database
 * with multi-row INSERTs inside transactions, through a connection of its own (SQLite file or MySQL URL).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import type { Store } from './processes.js';

const ROWS_PER_STATEMENT = 500;
const ROWS_PER_TRANSACTION = 50_000;

interface Sink {
  insert(sql: string, params: unknown[]): Promise<void>;
  exec(sql: string): Promise<void>;
  /** The first column of the first row. */
  scalar(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

async function open(store: Store): Promise<Sink> {
  if (store.databaseUrl) {
    const conn = await mysql.createConnection({ uri: store.databaseUrl });
    return {
      insert: async (sql, params) => void (await conn.query(sql, params)),
      exec: async (sql) => void (await conn.query(sql)),
      scalar: async (sql) => Object.values(((await conn.query(sql))[0] as Record<string, unknown>[])[0] ?? {})[0],
      close: () => conn.end(),
    };
  }
  const db = new Database(join(store.dataDir, 'portcullis.sqlite'));
  db.pragma('busy_timeout = 10000');
  // Fixture set-up on a stopped service: no fsync per commit, and a page cache large enough for the indexes.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const statements = new Map<string, Database.Statement>();
  return {
    insert: async (sql, params) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      statement.run(...params);
    },
    exec: async (sql) => void db.exec(sql),
    scalar: async (sql) => db.prepare(sql).pluck().get(),
    close: async () => void db.close(),
  };
}

/** Inserts rows `from` ≤ i < `to` made by `row(i)` for each table, in batches, one transaction per batch. */
async function insertRange(store: Store, from: number, to: number, tables: { table: string; columns: string[]; row(i: number): unknown[] }[]): Promise<void> {
  const sink = await open(store);
  try {
    for (let begin = from; begin < to; begin += ROWS_PER_TRANSACTION) {
      const end = Math.min(to, begin + ROWS_PER_TRANSACTION);
      await sink.exec(store.databaseUrl ? 'START TRANSACTION' : 'BEGIN');
      for (const { table, columns, row } of tables) {
        for (let first = begin; first < end; first += ROWS_PER_STATEMENT) {
          const count = Math.min(ROWS_PER_STATEMENT, end - first);
          const values = `(${columns.map(() => '?').join(', ')})`;
          const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(count).fill(values).join(', ')}`;
          await sink.insert(sql, Array.from({ length: count }, (_, k) => row(first + k)).flat());
        }
      }
      await sink.exec('COMMIT');
    }
    await sink.exec(store.databaseUrl ? `ANALYZE TABLE ${tables.map((t) => t.table).join(', ')}` : 'ANALYZE');
  } finally {
    await sink.close();
  }
}

export const userName = (i: number) => `user${i}@bench.example.com`;
export const userId = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`;
const CREATED = Date.UTC(2026, 0, 1);

/** Human users `from` ≤ i < `to` of one organization, each with its primary e-mail contact. */
export async function seedUsers(store: Store, orgId: string, from: number, to: number): Promise<void> {
  await insertRange(store, from, to, [
    {
      table: 'users',
      columns: [
        'id',
        'org_id',
        'type',
        'user_name',
        'user_name_lower',
        'state',
        'given_name',
        'family_name',
        'display_name',
        'preferred_language',
        'email',
        'email_lower',
        'email_verified',
        'phone_verified',
        'password_change_required',
        'failed_password_checks',
        'scim_attributes',
        'version',
        'created_at',
        'changed_at',
      ],
      row: (i) => {
        const [given, family, email] = [`Given${i % 997}`, `Family${i % 1009}`, userName(i)];
        const attributes = JSON.stringify({ emails: [{ value: email, type: 'work', primary: true }] });
        return [
          userId(i),
          orgId,
          'human',
          email,
          email,
          'active',
          given,
          family,
          `${given} ${family}`,
          'en',
          email,
          email,
          0,
          0,
          0,
          0,
          attributes,
          1,
          CREATED + i,
          CREATED + i,
        ];
      },
    },
    {
      table: 'user_contacts',
      columns: ['user_id', 'kind', 'position', 'org_id', 'value_lower', 'type_lower', 'is_primary'],
      row: (i) => [userId(i), 'email', 0, orgId, userName(i), 'work', 1],
    },
  ]);
  // The service keeps each organization's number of human users (SCIM totalResults) with every write.
  const sink = await open(store);
  try {
    await sink.insert('UPDATE org_user_counts SET humans = humans + ? WHERE org_id = ?', [to - from, orgId]);
  } finally {
    await sink.close();
  }
}

/** Ten event types in turn: a filter on one of them selects a tenth of the seeded events. */
export const EVENT_TYPES = [
  'user.human.added',
  'user.human.profile.changed',
  'user.human.email.changed',
  'user.human.phone.changed',
  'user.human.password.changed',
  'user.human.password.check.succeeded',
  'user.human.password.check.failed',
  'user.deactivated',
  'user.reactivated',
  'user.locked',
];
/** Each aggregate gets ten consecutive events (one of each type). */
export const aggregateId = (i: number) => `00000000-0000-7000-9000-${String(Math.floor(i / EVENT_TYPES.length)).padStart(12, '0')}`;

/** Events `from` ≤ i < `to` of one organization. */
export async function seedEvents(store: Store, orgId: string, from: number, to: number): Promise<void> {
  await insertRange(store, from, to, [
    {
      table: 'events',
      columns: ['id', 'type', 'aggregate_type', 'aggregate_id', 'resource_owner', 'editor_user_id', 'payload', 'created_at'],
      row: (i) => [
        `00000000-0000-7000-a000-${String(i).padStart(12, '0')}`,
        EVENT_TYPES[i % EVENT_TYPES.length],
        'user',
        aggregateId(i),
        orgId,
        null,
        JSON.stringify({ seq: i }),
        CREATED + i,
      ],
    },
  ]);
}

export const groupId = (i: number) => `00000000-0000-7000-b000-${String(i).padStart(12, '0')}`;
export const groupName = (i: number) => `Group ${i}`;

/** `count` groups of the organization; group i has the users `members(i)` (indexes into the seeded users). */
export async function seedGroups(store: Store, orgId: string, count: number, members: (i: number) => number[]): Promise<void> {
  await insertRange(store, 0, count, [
    {
      table: 'org_groups',
      columns: ['id', 'org_id', 'display_name', 'display_name_key', 'external_id', 'created_at', 'changed_at'],
      row: (i) => [groupId(i), orgId, groupName(i), groupName(i).toLowerCase(), `ext-${i}`, CREATED + i, CREATED + i],
    },
  ]);
  const rows = Array.from({ length: count }, (_, i) => members(i).map((u) => [groupId(i), userId(u), CREATED])).flat();
  await insertRange(store, 0, rows.length, [{ table: 'group_members', columns: ['group_id', 'user_id', 'added_at'], row: (i) => rows[i] }]);
}

/**
 * Rows of `oidc_payloads` `from` ≤ i < `to`, shaped like the service's own: two in three client-credentials
 * tokens (no grant), one in three access tokens of a login (grant and account set), each keyed by the hash
 * of its id, expiring at `expiresAt`.
 */
export async function seedOidcPayloads(store: Store, from: number, to: number, expiresAt: number): Promise<void> {
  await insertRange(store, from, to, [
    {
      table: 'oidc_payloads',
      columns: ['model', 'id_hash', 'payload', 'grant_id', 'account_id', 'expires_at'],
      row: (i) => {
        const login = i % 3 === 2;
        const account = login ? userId(i % 100_000) : 'bench-machine-client';
        const payload = JSON.stringify({
          iat: Math.floor(CREATED / 1000),
          exp: Math.floor(expiresAt / 1000),
          clientId: login ? 'bench-web-client' : account,
          kind: login ? 'AccessToken' : 'ClientCredentials',
          scope: login ? 'openid profile' : 'urn:portcullis:iam:org:project:id:bench:aud',
          ...(login ? { accountId: account, grantId: `grant-${i}`, gty: 'authorization_code', sessionUid: `session-${i}` } : {}),
        });
        return [
          login ? 'AccessToken' : 'ClientCredentials',
          createHash('sha256').update(`bench-token-${i}`).digest('base64url'),
          payload,
          login ? `grant-${i}` : null,
          account,
          expiresAt,
        ];
      },
    },
  ]);
}

/** One value read from the service's database (a count the scenario waits for). */
export async function scalarOf(store: Store, sql: string): Promise<number> {
  const db = await open(store);
  try {
    return Number(await db.scalar(sql));
  } finally {
    await db.close();
  }
}

/** Runs one statement on the service's database (a stopped service): e.g. makes deferred work due now. */
export async function execute(store: Store, sql: string): Promise<void> {
  const db = await open(store);
  try {
    await db.exec(sql);
  } finally {
    await db.close();
  }
}

/** One row of a query on the seeded database (bench set-up, outside any measurement). */
export async function readRow(store: Store, sql: string, params: unknown[]): Promise<Record<string, unknown> | undefined> {
  if (store.databaseUrl) {
    const conn = await mysql.createConnection({ uri: store.databaseUrl, supportBigNumbers: true, bigNumberStrings: false });
    try {
      const [rows] = await conn.query(sql, params);
      return (rows as Record<string, unknown>[])[0];
    } finally {
      await conn.end();
    }
  }
  const db = new Database(join(store.dataDir, 'portcullis.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
  } finally {
    db.close();
  }
}
