import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single logout with upstream SAML IdPs (docs/federation.md, "Single logout"): per sign-in through an IdP with a
 * SingleLogoutService, the assertion's NameID and SessionIndex, the interaction and then the login session they belong
 * to, and the LogoutRequest awaiting its answer.
 */
export class UpstreamSamlSessions1795760795760 implements MigrationInterface {
  name = 'UpstreamSamlSessions1795760795760';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'upstream_saml_sessions',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_upstream_saml_sessions' },
          { name: 'idp_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'interaction_uid', type: 'varchar', length: '64', isNullable: true },
          { name: 'session_uid', type: 'varchar', length: '64', isNullable: true },
          { name: 'name_id', type: 'varchar', length: '512', isNullable: false },
          { name: 'name_id_format', type: 'varchar', length: '200', isNullable: false },
          { name: 'name_qualifier', type: 'varchar', length: '512', isNullable: true },
          { name: 'sp_name_qualifier', type: 'varchar', length: '512', isNullable: true },
          { name: 'session_index', type: 'varchar', length: '512', isNullable: true },
          { name: 'logout_state_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'logout_request_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'after_logout', type: 'text', isNullable: true },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_upstream_saml_sessions_idp',
            columnNames: ['idp_id'],
            referencedTableName: 'identity_providers',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [
          new TableIndex({ name: 'ix_upstream_saml_sessions_name', columnNames: ['idp_id', 'name_id'] }),
          new TableIndex({ name: 'ix_upstream_saml_sessions_session', columnNames: ['session_uid'] }),
          new TableIndex({ name: 'ix_upstream_saml_sessions_interaction', columnNames: ['interaction_uid'] }),
          new TableIndex({ name: 'ix_upstream_saml_sessions_logout', columnNames: ['logout_state_hash'] }),
          new TableIndex({ name: 'ix_upstream_saml_sessions_expiry', columnNames: ['expires_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('upstream_saml_sessions', true, true, true);
  }
}
