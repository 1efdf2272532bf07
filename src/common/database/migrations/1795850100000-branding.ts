import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Brands of the sign-in pages (docs/branding.md): one row for the instance, an organization or an application,
 * its checked document as JSON and its re-encoded images (PNG, base64) apart, so a page reads the small document
 * and only the logo's own route reads the image.
 */
export class Branding1795850100000 implements MigrationInterface {
  name = 'Branding1795850100000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'branding',
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
        columns: [
          { name: 'id', type: 'varchar', length: '80', isPrimary: true, primaryKeyConstraintName: 'pk_branding' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'document', type: mysql ? 'mediumtext' : 'text', isNullable: false },
          { name: 'logo', type: mysql ? 'mediumtext' : 'text', isNullable: true },
          { name: 'icon', type: mysql ? 'mediumtext' : 'text', isNullable: true },
          { name: 'revision', type: 'varchar', length: '32', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_branding_org', columnNames: ['org_id'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('branding', true, true, true);
  }
}
