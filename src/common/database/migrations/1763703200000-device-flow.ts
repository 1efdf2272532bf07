import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The device authorization grant (RFC 8628): when the device last polled its device code and the
 * interval it must keep, in the code's own row, so that `slow_down` (§3.5) holds across processes. NULL for
 * every other row. `user_code` already exists (and is indexed); from now on it holds the user code's keyed hash.
 * No device code was ever stored before (the feature was off), so no row needs rewriting.
 */
export class DeviceFlow1763703200000 implements MigrationInterface {
  name = 'DeviceFlow1763703200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumns('oidc_payloads', [
      new TableColumn({ name: 'last_polled_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'poll_interval', type: 'integer', isNullable: true }),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('oidc_payloads', 'poll_interval');
    await runner.dropColumn('oidc_payloads', 'last_polled_at');
  }
}
