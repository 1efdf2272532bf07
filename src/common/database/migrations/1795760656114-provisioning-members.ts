import { Table, TableForeignKey } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The memberships a provisioning target was sent (src/provisioning; docs/provisioning.md, "Groups"): per target and
 * group, the remote ids of the members the target was told to list. Membership changes are computed from it, so a
 * large group is never read whole from the target; a reconcile rebuilds it from the target. Rows go with their
 * target.
 */
export class ProvisioningMembers1795760656114 implements MigrationInterface {
  name = 'ProvisioningMembers1795760656114';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'provisioning_members',
        engine,
        columns: [
          { name: 'target_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_provisioning_members' },
          // The local group id.
          { name: 'group_id', type: 'varchar', length: '64', isPrimary: true },
          // The member's id at the target.
          { name: 'member_id', type: 'varchar', length: '255', isPrimary: true },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_provisioning_members_target',
            columnNames: ['target_id'],
            referencedTableName: 'provisioning_targets',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('provisioning_members', true, true, true);
  }
}
