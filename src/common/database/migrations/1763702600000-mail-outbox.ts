import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail and one-time codes (docs/mail.md): the outbox every process sends from, the codes the links
 * carry (only their hashes), and the login policy's `inviteOnProvision` and `requireVerifiedEmail`.
 */
export class MailOutbox1763702600000 implements MigrationInterface {
  name = 'MailOutbox1763702600000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'mail_messages',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_mail_messages' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'purpose', type: 'varchar', length: '32', isNullable: false },
          { name: 'recipient', type: 'varchar', length: '320', isNullable: false },
          { name: 'content', type: 'text', isNullable: true },
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          { name: 'attempts', type: 'int', isNullable: false },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false },
          { name: 'sent_at', type: 'bigint', isNullable: true },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'leased_until', type: 'bigint', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'ix_mail_messages_due', columnNames: ['status', 'next_attempt_at'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'user_codes',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_user_codes' },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'purpose', type: 'varchar', length: '32', isNullable: false },
          { name: 'secret_hash', type: 'varchar', length: '64', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_user_codes_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [new TableIndex({ name: 'ix_user_codes_user_purpose', columnNames: ['user_id', 'purpose'] })],
      }),
    );
    await runner.addColumn('login_policies', new TableColumn({ name: 'invite_on_provision', type: 'boolean', isNullable: false, default: false }));
    await runner.addColumn('login_policies', new TableColumn({ name: 'require_verified_email', type: 'boolean', isNullable: false, default: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('login_policies', 'require_verified_email');
    await runner.dropColumn('login_policies', 'invite_on_provision');
    await runner.dropTable('user_codes', true, true, true);
    await runner.dropTable('mail_messages', true, true, true);
  }
}
