import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The user each stored OIDC object belongs to (a session's, grant's, code's or token's account; for a
 * client-credentials token, the machine user that is its client), indexed, so that deleting,
 * deactivating or locking a user or changing its password revokes all of them in the transaction of the
 * change (SECURITY.md, "A user's access dies with it"). Existing rows are filled from their payloads.
 */
export class OidcPayloadAccounts1763701100000 implements MigrationInterface {
  name = 'OidcPayloadAccounts1763701100000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    if (mysql) {
      await runner.query('ALTER TABLE `oidc_payloads` ADD COLUMN `account_id` varchar(64) NULL');
      await runner.query(
        "UPDATE `oidc_payloads` SET `account_id` = COALESCE(JSON_VALUE(`payload`, '$.accountId'), CASE WHEN `model` = 'ClientCredentials' THEN JSON_VALUE(`payload`, '$.clientId') END)",
      );
      await runner.query('CREATE INDEX `ix_oidc_payloads_account` ON `oidc_payloads` (`account_id`)');
      return;
    }
    await runner.query('ALTER TABLE "oidc_payloads" ADD COLUMN "account_id" varchar(64) NULL');
    await runner.query(
      `UPDATE "oidc_payloads" SET "account_id" = COALESCE(json_extract("payload", '$.accountId'), CASE WHEN "model" = 'ClientCredentials' THEN json_extract("payload", '$.clientId') END)`,
    );
    // Partial, like the other sparse look-up columns (1763700600000): interactions and clients carry none.
    await runner.query('CREATE INDEX "ix_oidc_payloads_account" ON "oidc_payloads" ("account_id") WHERE "account_id" IS NOT NULL');
  }

  async down(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.query(mysql ? 'DROP INDEX `ix_oidc_payloads_account` ON `oidc_payloads`' : 'DROP INDEX "ix_oidc_payloads_account"');
    await runner.query(mysql ? 'ALTER TABLE `oidc_payloads` DROP COLUMN `account_id`' : 'ALTER TABLE "oidc_payloads" DROP COLUMN "account_id"');
  }
}
