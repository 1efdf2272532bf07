import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The NameID format a pending AuthnRequest gets, decided from its NameIDPolicy when it arrives (docs/saml.md,
 * "NameID"): the response follows the request, not only the application's setting. Null (IdP-initiated sign-ins, and
 * rows pending during the upgrade) answers with the application's format.
 */
export class SamlRequestNameIdFormat1795818024363 implements MigrationInterface {
  name = 'SamlRequestNameIdFormat1795818024363';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('saml_requests', new TableColumn({ name: 'name_id_format', type: 'varchar', length: '20', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('saml_requests', 'name_id_format');
  }
}
