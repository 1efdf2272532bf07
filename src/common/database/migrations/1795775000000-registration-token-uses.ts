import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An initial access token registers as many clients as it was issued for (docs/agents.md, "Dynamic registration"):
 * `uses_left` counts down at each registration. Tokens issued before hold one use, as a new token does by default.
 */
export class RegistrationTokenUses1795775000000 implements MigrationInterface {
  name = 'RegistrationTokenUses1795775000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('agent_registration_tokens', new TableColumn({ name: 'uses_left', type: 'int', isNullable: false, default: 1 }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('agent_registration_tokens', 'uses_left');
  }
}
