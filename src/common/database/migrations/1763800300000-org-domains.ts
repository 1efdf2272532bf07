import { randomBytes } from 'node:crypto';
import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organization's own domains beside its primary one (src/federation; docs/federation.md, "Organization
 * domains"): each unique in the instance, unverified until its DNS TXT record or HTTPS file is found. The primary
 * domain (`<slug>.<INSTANCE_DOMAIN>`) stays the organization's column and is verified by construction.
 *
 * An IdP's home-realm domains must now be verified domains of its own organization. Of the domains IdPs claimed
 * before: one that is another organization's primary domain is dropped from the IdP (it led that organization's
 * people to a foreign upstream); any other becomes an unverified domain of the IdP's organization, and stays on the
 * IdP, leading nowhere until the organization verifies it. `down` drops the table; dropped claims stay dropped.
 */
export class OrgDomains1763800300000 implements MigrationInterface {
  name = 'OrgDomains1763800300000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    // Removed by the service, with the organization's IdPs (OrgResources), before the organization.
    const orgKey = new TableForeignKey({
      name: 'fk_org_domains_org',
      columnNames: ['org_id'],
      referencedTableName: 'organizations',
      referencedColumnNames: ['id'],
    });
    await runner.createTable(
      new Table({
        name: 'org_domains',
        engine,
        columns: [
          { name: 'domain', type: 'varchar', length: '253', isPrimary: true, primaryKeyConstraintName: 'pk_org_domains' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'challenge', type: 'varchar', length: '64', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'verified_at', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [orgKey],
        indices: [new TableIndex({ name: 'ix_org_domains_org', columnNames: ['org_id', 'domain'] })],
      }),
    );
    await runner.query(
      `DELETE FROM idp_domains WHERE EXISTS (SELECT 1 FROM organizations o JOIN identity_providers p ON p.org_id <> o.id
         WHERE p.id = idp_domains.idp_id AND o.primary_domain = idp_domains.domain)`,
    );
    const pending: { domain: string; org_id: string }[] = await runner.query(
      `SELECT d.domain, p.org_id FROM idp_domains d JOIN identity_providers p ON p.id = d.idp_id
         WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.primary_domain = d.domain)`,
    );
    const now = Date.now();
    for (const { domain, org_id } of pending) {
      await runner.query('INSERT INTO org_domains (domain, org_id, challenge, created_at, verified_at) VALUES (?, ?, ?, ?, NULL)', [
        domain,
        org_id,
        randomBytes(32).toString('base64url'),
        now,
      ]);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('org_domains', true, true, true);
  }
}
