import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drafts of a brand shown by a preview link (docs/branding.md, "Preview"): the checked document and re-encoded logo,
 * found by the SHA-256 of the link's token (the token itself is never stored), gone after ten minutes.
 */
export class BrandingPreviews1795850800000 implements MigrationInterface {
  name = 'BrandingPreviews1795850800000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'branding_previews',
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
        columns: [
          { name: 'token_hash', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_branding_previews' },
          { name: 'scope', type: 'varchar', length: '80', isNullable: false },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'document', type: mysql ? 'mediumtext' : 'text', isNullable: false },
          { name: 'logo', type: mysql ? 'mediumtext' : 'text', isNullable: true },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'ix_branding_previews_scope', columnNames: ['scope', 'expires_at'] }),
          new TableIndex({ name: 'ix_branding_previews_org', columnNames: ['org_id'] }),
          new TableIndex({ name: 'ix_branding_previews_expires', columnNames: ['expires_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('branding_previews', true, true, true);
  }
}
