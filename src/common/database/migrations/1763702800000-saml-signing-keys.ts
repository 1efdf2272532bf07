import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The instance's SAML signing keys (docs/saml.md, "Signing keys"): an RSA key sealed with the master key and its
 * self-signed certificate, which every organization's IdP metadata publishes. Scheduled like the OIDC keys (a next
 * key is published before it signs), so both certificates are in the metadata during a rotation.
 */
export class SamlSigningKeys1763702800000 implements MigrationInterface {
  name = 'SamlSigningKeys1763702800000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'saml_signing_keys',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_saml_signing_keys' },
          { name: 'certificate_pem', type: 'text', isNullable: false },
          { name: 'private_key_encrypted', type: 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'signs_from', type: 'bigint', isNullable: false },
          { name: 'retired_at', type: 'bigint', isNullable: true },
          { name: 'publish_until', type: 'bigint', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'ix_saml_signing_keys_created', columnNames: ['created_at'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('saml_signing_keys', true, true, true);
  }
}
