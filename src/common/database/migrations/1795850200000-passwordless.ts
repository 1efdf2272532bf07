import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The login policy's `passwordless` (docs/passwordless.md): `off`, `allowed` or `required` (passkeys only). Existing
 * policies keep passwords.
 */
export class Passwordless1795850200000 implements MigrationInterface {
  name = 'Passwordless1795850200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('login_policies', new TableColumn({ name: 'passwordless', type: 'varchar', length: '16', isNullable: false, default: "'off'" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('login_policies', 'passwordless');
  }
}
