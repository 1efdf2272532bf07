import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

/**
 * Where the suites' databases live. Unset: SQLite in a temporary DATA_DIR. TEST_DATABASE_URL set
 * (a MySQL/MariaDB server URL, e.g. mysql://root@127.0.0.1:3306): every started service gets a
 * fresh database of its own on that server, dropped when the service is closed.
 */
export interface TestDatabase {
  /** DATABASE_URL for the service, or undefined for the default SQLite file. */
  url?: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) return { url: undefined, drop: async () => undefined };
  const base = new URL(server);
  const name = `portcullis_test_${randomBytes(6).toString('hex')}`;
  const admin = await connect(base);
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const conn = await connect(base);
      try {
        await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await conn.end();
      }
    },
  };
}

function connect(url: URL) {
  return mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  });
}
