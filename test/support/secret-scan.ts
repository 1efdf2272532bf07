import type { DataSource } from 'typeorm';

/** Names of every table of the service's database (SQLite or MySQL). */
export async function listTables(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type === 'mysql') {
    const rows: Array<{ name: string }> = await dataSource.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()');
    return rows.map((r) => r.name);
  }
  const rows: Array<{ name: string }> = await dataSource.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  return rows.map((r) => r.name);
}

/**
 * Reads every row of every table and returns `table: secret` for each given secret found in plain
 * text anywhere, so a test can assert the list is empty.
 */
export async function findSecretsAtRest(dataSource: DataSource, secrets: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of await listTables(dataSource)) {
    const dump = JSON.stringify(await dataSource.query(`SELECT * FROM ${dataSource.driver.escape(table)}`));
    for (const secret of secrets) if (dump.includes(secret)) found.push(`${table}: ${secret.slice(0, 6)}…`);
  }
  return found;
}
