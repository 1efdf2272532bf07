import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client each stored OIDC object was issued to (a grant's, code's or token's `clientId`), indexed, so
 * that removing an application revokes what was issued to it by index instead of reading every payload's
 * JSON. Sessions name their clients only inside `authorizations` and stay NULL.
 * Existing rows are filled from their payloads, once.
 */
export class OidcPayloadClients1763702100000 implements MigrationInterface {
  name = 'OidcPayloadClients1763702100000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    if (mysql) {
      await runner.query('ALTER TABLE `oidc_payloads` ADD COLUMN `client_id` varchar(100) NULL');
      await runner.query("UPDATE `oidc_payloads` SET `client_id` = JSON_VALUE(`payload`, '$.clientId') WHERE `model` <> 'Session'");
      await runner.query('CREATE INDEX `ix_oidc_payloads_client` ON `oidc_payloads` (`client_id`)');
      return;
    }
    await runner.query('ALTER TABLE "oidc_payloads" ADD COLUMN "client_id" varchar(100) NULL');
    await runner.query(`UPDATE "oidc_payloads" SET "client_id" = json_extract("payload", '$.clientId') WHERE "model" <> 'Session'`);
    // Partial, like the other sparse look-up columns (1763700600000): sessions and clients carry none.
    await runner.query('CREATE INDEX "ix_oidc_payloads_client" ON "oidc_payloads" ("client_id") WHERE "client_id" IS NOT NULL');
  }

  async down(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.query(mysql ? 'DROP INDEX `ix_oidc_payloads_client` ON `oidc_payloads`' : 'DROP INDEX "ix_oidc_payloads_client"');
    await runner.query(mysql ? 'ALTER TABLE `oidc_payloads` DROP COLUMN `client_id`' : 'ALTER TABLE "oidc_payloads" DROP COLUMN "client_id"');
  }
}
