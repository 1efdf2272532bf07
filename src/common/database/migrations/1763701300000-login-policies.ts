import { Table } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An organization's login policy; no row means the defaults (MFA optional, passkeys on, registration on). */
export class LoginPolicies1763701300000 implements MigrationInterface {
  name = 'LoginPolicies1763701300000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'login_policies',
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
        columns: [
          { name: 'org_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_login_policies' },
          { name: 'mfa', type: 'varchar', length: '16', isNullable: false },
          { name: 'passkeys', type: 'boolean', isNullable: false },
          { name: 'allow_registration', type: 'boolean', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('login_policies', true, true, true);
  }
}
