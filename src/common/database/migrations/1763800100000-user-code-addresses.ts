import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mailed code remembers the address it was sent to (docs/mail.md, "Codes"): following it verifies that address
 * only. Codes issued before this column existed get their user's address where it has not changed since the code
 * was issued (no `user.human.email.changed` event after it); the others end, since the address they were sent to is
 * no longer known. Their holders ask for a new link.
 */
export class UserCodeAddresses1763800100000 implements MigrationInterface {
  name = 'UserCodeAddresses1763800100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('user_codes', new TableColumn({ name: 'address', type: 'varchar', length: '320', isNullable: true }));
    await runner.query(
      `DELETE FROM user_codes WHERE EXISTS (SELECT 1 FROM events e WHERE e.aggregate_id = user_codes.user_id
         AND e.type = 'user.human.email.changed' AND e.created_at >= user_codes.created_at)`,
    );
    await runner.query('UPDATE user_codes SET address = (SELECT u.email FROM users u WHERE u.id = user_codes.user_id)');
    await runner.query('DELETE FROM user_codes WHERE address IS NULL');
    await runner.changeColumn('user_codes', 'address', new TableColumn({ name: 'address', type: 'varchar', length: '320', isNullable: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('user_codes', 'address');
  }
}
