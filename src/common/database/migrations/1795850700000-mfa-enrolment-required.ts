import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user owes a second factor (docs/migrating.md, "What maps to what"): enrolment is required at the next sign-in
 * whatever the login policy says, and the flag clears once a factor is added. Existing users owe none.
 */
export class MfaEnrolmentRequired1795850700000 implements MigrationInterface {
  name = 'MfaEnrolmentRequired1795850700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn({ name: 'mfa_enrolment_required', type: 'boolean', isNullable: false, default: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'mfa_enrolment_required');
  }
}
