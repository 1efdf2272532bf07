import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Second factors of human users (docs/product-rules.md, "Multi-factor sign-in"). One row per TOTP
 * authenticator, passkey or set of recovery codes; `state` is `pending` between the start and the
 * confirmation of an enrolment. TOTP secrets are encrypted with the master key; a passkey is found by
 * `credential_key`, the SHA-256 of its credential id (ids are up to 1,023 bytes, too long for a unique
 * index on MySQL). Recovery codes are stored as keyed hashes, one row each, so using one is a single
 * conditional UPDATE. `mfa_offer_skips` remembers that a user declined the offer to enrol.
 */
export class UserFactors1763701600000 implements MigrationInterface {
  name = 'UserFactors1763701600000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    const userKey = (table: string) =>
      new TableForeignKey({
        name: `fk_${table}_user`,
        columnNames: ['user_id'],
        referencedTableName: 'users',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      });
    await runner.createTable(
      new Table({
        name: 'user_factors',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_user_factors' },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'type', type: 'varchar', length: '16', isNullable: false },
          { name: 'state', type: 'varchar', length: '16', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: true },
          { name: 'totp_secret', type: 'text', isNullable: true },
          { name: 'totp_last_step', type: 'bigint', isNullable: true },
          { name: 'credential_key', type: 'varchar', length: '64', isNullable: true },
          { name: 'credential_id', type: 'text', isNullable: true },
          { name: 'public_key', type: 'text', isNullable: true },
          { name: 'sign_count', type: 'bigint', isNullable: true },
          { name: 'transports', type: 'varchar', length: '200', isNullable: true },
          { name: 'multi_device', type: 'boolean', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'last_used_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_user_factors_user', columnNames: ['user_id', 'state'] }),
          new TableIndex({ name: 'ux_user_factors_credential', columnNames: ['credential_key'], isUnique: true }),
        ],
        foreignKeys: [userKey('user_factors')],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'recovery_codes',
        engine,
        columns: [
          { name: 'factor_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'code_hash', type: 'varchar', length: '64', isPrimary: true },
          { name: 'used_at', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_recovery_codes_factor',
            columnNames: ['factor_id'],
            referencedTableName: 'user_factors',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'mfa_offer_skips',
        engine,
        columns: [
          { name: 'user_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_mfa_offer_skips' },
          { name: 'skipped_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [userKey('mfa_offer_skips')],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('mfa_offer_skips', true, true, true);
    await runner.dropTable('recovery_codes', true, true, true);
    await runner.dropTable('user_factors', true, true, true);
  }
}
