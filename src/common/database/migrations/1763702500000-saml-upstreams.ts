import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SAML 2.0 upstreams (docs/federation.md, "SAML"): this SP's private key per IdP (encrypted with the
 * master key; its certificate is public, in the settings), and the IDs of the assertions already accepted, kept
 * until they expire, so that a replayed assertion is refused by every process (the replay cache in the database).
 */
export class SamlUpstreams1763702500000 implements MigrationInterface {
  name = 'SamlUpstreams1763702500000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.addColumn('identity_providers', new TableColumn({ name: 'sp_private_key', type: 'text', isNullable: true }));
    await runner.createTable(
      new Table({
        name: 'saml_assertions_seen',
        engine,
        columns: [
          { name: 'assertion_hash', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_saml_assertions_seen' },
          { name: 'idp_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_saml_assertions_seen_idp',
            columnNames: ['idp_id'],
            referencedTableName: 'identity_providers',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [
          new TableIndex({ name: 'ix_saml_assertions_seen_expiry', columnNames: ['expires_at'] }),
          new TableIndex({ name: 'ix_saml_assertions_seen_idp', columnNames: ['idp_id'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('saml_assertions_seen', true, true, true);
    await runner.dropColumn('identity_providers', 'sp_private_key');
  }
}
