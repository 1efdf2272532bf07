import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The login policy's `passwordLogin` (docs/federation.md, "Signing in"): false makes an organization federated only, its
 * people signing in through its identity providers. Existing policies keep passwords.
 */
export class PasswordLogin1763702400000 implements MigrationInterface {
  name = 'PasswordLogin1763702400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('login_policies', new TableColumn({ name: 'password_login', type: 'boolean', isNullable: false, default: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('login_policies', 'password_login');
  }
}
