import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The RelayState a SAML application's IdP-initiated responses carry (docs/saml.md, "IdP-initiated sign-in"): a page
 * of the service provider. Absent for every existing application, which keeps sending none.
 */
export class SamlIdpInitiatedRelayState1795760501151 implements MigrationInterface {
  name = 'SamlIdpInitiatedRelayState1795760501151';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('saml_applications', new TableColumn({ name: 'idp_initiated_relay_state', type: 'varchar', length: '200', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('saml_applications', 'idp_initiated_relay_state');
  }
}
