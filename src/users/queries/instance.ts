import type { DataSource, EntityManager } from 'typeorm';
import { INSTANCE_ID, InstanceEntity } from '../entities/instance.entity.js';

/**
 * Takes the instance row for the rest of the caller's transaction, so that instance-wide checks (the last
 * IAM_OWNER, the first signing key) are serialized across processes. MySQL/MariaDB: a write, not a
 * `SELECT … FOR UPDATE` — it locks the row on this server as that would, and on a Galera cluster it is also
 * certified against the other nodes' writes, so two guarded transactions on two nodes cannot both commit (the
 * loser is rolled back with 1213 and its unit of work runs again, seeing the winner's change; docs/high-availability.md). SQLite
 * needs nothing: every transaction takes the write lock at BEGIN (src/common/database/data-source.ts).
 */
export async function lockInstanceRow(manager: EntityManager): Promise<void> {
  if (manager.connection.options.type === 'mysql') await manager.query('UPDATE instance SET guard_version = guard_version + 1 WHERE id = ?', [INSTANCE_ID]);
}

/** The instance settings a SCIM write needs. */
export interface ScimInstanceSettings {
  defaultLanguage: string;
  passwordMinLength: number;
}

/** The instance's default language and password minimum length; fails before the instance is bootstrapped. */
export async function scimInstanceSettings(dataSource: DataSource): Promise<ScimInstanceSettings> {
  const [row]: { default_language: string; password_min_length: number | string }[] = await dataSource.query(
    'SELECT default_language, password_min_length FROM instance WHERE id = ?',
    [INSTANCE_ID],
  );
  if (!row) throw new Error('the instance is not bootstrapped');
  return { defaultLanguage: row.default_language, passwordMinLength: Number(row.password_min_length) };
}

/** The instance's settings row, inside the caller's transaction; null before the instance is bootstrapped. */
export function instanceSettings(manager: EntityManager): Promise<InstanceEntity | null> {
  return manager.findOneBy(InstanceEntity, { id: INSTANCE_ID });
}
