import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An OIDC application's subject type (OIDC Core §8): `public`, the user id as `sub`, or `pairwise`, a value of its own
 * per sector (docs/oauth-profiles.md, "Pairwise subjects"). Every existing application stays `public`: the `sub` its
 * users already have must not change under it.
 */
export class SubjectTypes1763800200000 implements MigrationInterface {
  name = 'SubjectTypes1763800200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('applications', new TableColumn({ name: 'subject_type', type: 'varchar', length: '8', isNullable: false, default: "'public'" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'subject_type');
  }
}
