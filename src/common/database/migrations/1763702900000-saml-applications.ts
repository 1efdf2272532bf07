import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SAML applications (docs/saml.md): an `applications` row of kind `saml` and this row of what the service
 * provider is — its entity id (unique in the organization), ACS URLs, NameID format, attributes, signing and
 * encryption choices. Removed with its application.
 */
export class SamlApplications1763702900000 implements MigrationInterface {
  name = 'SamlApplications1763702900000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    const flag = (name: string) => ({ name, type: 'boolean', isNullable: false, default: false });
    await runner.createTable(
      new Table({
        name: 'saml_applications',
        engine,
        columns: [
          { name: 'app_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_saml_applications' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'entity_id', type: 'varchar', length: '512', isNullable: false },
          { name: 'acs_urls', type: 'text', isNullable: false },
          { name: 'name_id_format', type: 'varchar', length: '16', isNullable: false },
          { name: 'attributes', type: 'text', isNullable: false },
          flag('sign_assertion'),
          flag('sign_response'),
          flag('encrypt_assertion'),
          { name: 'sp_certificate', type: 'text', isNullable: true },
          flag('require_signed_requests'),
          { name: 'slo_url', type: 'varchar', length: '2048', isNullable: true },
          flag('allow_idp_initiated'),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_saml_applications_app',
            columnNames: ['app_id'],
            referencedTableName: 'applications',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [new TableIndex({ name: 'ux_saml_applications_entity', columnNames: ['org_id', 'entity_id'], isUnique: true })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('saml_applications', true, true, true);
  }
}
