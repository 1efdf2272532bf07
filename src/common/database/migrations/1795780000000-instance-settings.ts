import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

interface InstanceRow {
  lockout_max_attempts: number | string;
  password_min_length: number | string;
  access_token_lifetime: number | string;
  id_token_lifetime: number | string;
  refresh_token_idle_lifetime: number | string;
  refresh_token_absolute_lifetime: number | string;
}

/**
 * The instance's settings (docs/operations.md, "Settings"), one row per field an operator changed, and the token
 * lifetimes an application has of its own. An instance that already ran keeps the lifetimes, minimum password
 * length and lockout it had; its organizations keep their registration as it was (an organization without a
 * stored login policy still offers it), only organizations created from now on follow the new default.
 */
export class InstanceSettings1795780000000 implements MigrationInterface {
  name = 'InstanceSettings1795780000000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'instance_settings',
        engine,
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_instance_settings' },
          { name: 'value', type: 'varchar', length: '64', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'application_token_lifetimes',
        engine,
        columns: [
          { name: 'app_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_application_token_lifetimes' },
          { name: 'client_id', type: 'varchar', length: '500', isNullable: false },
          { name: 'access_token_seconds', type: 'int', isNullable: true },
          { name: 'id_token_seconds', type: 'int', isNullable: true },
          { name: 'refresh_idle_seconds', type: 'int', isNullable: true },
          { name: 'refresh_absolute_seconds', type: 'int', isNullable: true },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_application_token_lifetimes_client', columnNames: ['client_id'] })],
      }),
    );
    const [instance] = (await runner.query('SELECT * FROM instance')) as InstanceRow[];
    if (!instance) return;
    const kept: [string, number][] = [
      ['tokens.accessTokenSeconds', Number(instance.access_token_lifetime)],
      ['tokens.idTokenSeconds', Number(instance.id_token_lifetime)],
      ['tokens.refreshIdleSeconds', Number(instance.refresh_token_idle_lifetime)],
      ['tokens.refreshAbsoluteSeconds', Number(instance.refresh_token_absolute_lifetime)],
      ['passwordPolicy.minLength', Number(instance.password_min_length)],
      // One count of failed checks locked at a password and at a second factor alike.
      ['lockout.maxPasswordFailures', Number(instance.lockout_max_attempts)],
      ['lockout.maxFactorFailures', Number(instance.lockout_max_attempts)],
    ];
    const now = Date.now();
    for (const [name, value] of kept)
      await runner.query('INSERT INTO instance_settings (name, value, changed_at) VALUES (?, ?, ?)', [name, String(value), now]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('application_token_lifetimes', true, true, true);
    await runner.dropTable('instance_settings', true, true, true);
  }
}
