import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keys an OIDC application brings itself for private_key_jwt and signed request objects (docs/oauth-profiles.md,
 * "Client keys"): its public JSON Web Key Set inline (`jwks`, RFC 7591 §2), or the URL that serves it (`jwks_uri`).
 * Absent for every existing application: they keep the keys registered through the management API.
 */
export class ClientJwks1763800700000 implements MigrationInterface {
  name = 'ClientJwks1763800700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumns('applications', [
      new TableColumn({ name: 'jwks', type: 'text', isNullable: true }),
      new TableColumn({ name: 'jwks_uri', type: 'varchar', length: '2000', isNullable: true }),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'jwks_uri');
    await runner.dropColumn('applications', 'jwks');
  }
}
