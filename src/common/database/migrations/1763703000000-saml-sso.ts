import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SAML single sign-on and logout (docs/saml.md, "Single sign-on", "Single logout").
 *
 * `saml_requests`: an AuthnRequest being answered, found by the hash of the handle its sign-in carries through the
 * authorization round trip, and the SP's request `ID` kept single use per application (the replay cache:
 * `ux_saml_requests_request`; IdP-initiated sign-ins have none). Rows live an hour, the login UI's interaction time.
 *
 * `saml_sessions`: an assertion a service provider holds, by the OIDC session it was issued in, so that a logout
 * (by the SP, or a user deactivated, locked or removed) reaches every SP with a `sloUrl` by NameID and SessionIndex.
 * A row whose session ended gets `logout_due_at` in that transaction: the outbox of the LogoutRequests still to send.
 */
export class SamlSso1763703000000 implements MigrationInterface {
  name = 'SamlSso1763703000000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    const flag = (name: string) => ({ name, type: 'boolean', isNullable: false, default: false });
    const application = (table: string) =>
      new TableForeignKey({
        name: `fk_${table}_app`,
        columnNames: ['app_id'],
        referencedTableName: 'applications',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      });
    await runner.createTable(
      new Table({
        name: 'saml_requests',
        engine,
        columns: [
          { name: 'handle_hash', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_saml_requests' },
          { name: 'app_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'request_id', type: 'varchar', length: '256', isNullable: true },
          { name: 'acs_url', type: 'varchar', length: '2048', isNullable: false },
          { name: 'relay_state', type: 'varchar', length: '200', isNullable: true },
          flag('force_authn'),
          flag('is_passive'),
          flag('requires_mfa'),
          { name: 'code_challenge', type: 'varchar', length: '64', isNullable: false },
          { name: 'answered', type: 'boolean', isNullable: false, default: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [application('saml_requests')],
        indices: [
          new TableIndex({ name: 'ux_saml_requests_request', columnNames: ['app_id', 'request_id'], isUnique: true }),
          new TableIndex({ name: 'ix_saml_requests_expiry', columnNames: ['expires_at'] }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'saml_sessions',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_saml_sessions' },
          { name: 'app_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'session_uid', type: 'varchar', length: '64', isNullable: false },
          { name: 'name_id', type: 'varchar', length: '512', isNullable: false },
          { name: 'name_id_format', type: 'varchar', length: '128', isNullable: false },
          flag('name_id_qualified'),
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
          { name: 'logout_attempts', type: 'int', isNullable: false, default: 0 },
          { name: 'logout_due_at', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [application('saml_sessions')],
        indices: [
          new TableIndex({ name: 'ix_saml_sessions_user', columnNames: ['user_id'] }),
          new TableIndex({ name: 'ix_saml_sessions_session', columnNames: ['session_uid'] }),
          new TableIndex({ name: 'ix_saml_sessions_expiry', columnNames: ['expires_at'] }),
          new TableIndex({ name: 'ix_saml_sessions_logout', columnNames: ['logout_due_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('saml_sessions', true, true, true);
    await runner.dropTable('saml_requests', true, true, true);
  }
}
