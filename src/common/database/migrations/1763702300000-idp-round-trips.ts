import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per trip of a browser to an upstream identity provider and back (docs/federation.md,
 * "The round trip"): found by the hash of its `state`, a random handle; it lives ten minutes and is used once.
 * The PKCE verifier and the nonce are kept encrypted, as is what the upstream sent back until the sign-in goes on.
 */
export class IdpRoundTrips1763702300000 implements MigrationInterface {
  name = 'IdpRoundTrips1763702300000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'idp_round_trips',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_idp_round_trips' },
          { name: 'state_hash', type: 'varchar', length: '64', isNullable: false },
          { name: 'idp_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'interaction_uid', type: 'varchar', length: '64', isNullable: false },
          { name: 'secrets', type: 'varchar', length: '1024', isNullable: false },
          { name: 'answer', type: 'text', isNullable: true },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_idp_round_trips_idp',
            columnNames: ['idp_id'],
            referencedTableName: 'identity_providers',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [
          new TableIndex({ name: 'uq_idp_round_trips_state', columnNames: ['state_hash'], isUnique: true }),
          new TableIndex({ name: 'ix_idp_round_trips_expiry', columnNames: ['expires_at'] }),
          new TableIndex({ name: 'ix_idp_round_trips_idp', columnNames: ['idp_id'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('idp_round_trips', true, true, true);
  }
}
