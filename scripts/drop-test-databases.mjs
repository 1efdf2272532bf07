#!/usr/bin/env node
// Drops databases left behind by interrupted test runs (portcullis_test_*) on a MySQL/MariaDB server.
import mysql from 'mysql2/promise';

const url = new URL(process.argv[2] ?? process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306');
const conn = await mysql.createConnection({
  host: url.hostname,
  port: Number(url.port || 3306),
  user: decodeURIComponent(url.username || 'root'),
  password: decodeURIComponent(url.password),
});
const [rows] = await conn.query("SHOW DATABASES LIKE 'portcullis\\_test\\_%'");
for (const row of rows) {
  const name = Object.values(row)[0];
  await conn.query(`DROP DATABASE \`${name}\``);
}
console.log(`dropped ${rows.length} leftover test database(s)`);
await conn.end();
