import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `applications.ssf_receiver`: whether the application may open Shared Signals streams (docs/signals.md,
 * "Receivers"). Off for every existing application: a stream tells its receiver about every person the application
 * may enter (their sign-outs, credential and address changes), which an application registered for sign-in alone
 * was never meant to learn.
 */
export class ApplicationSsfReceiver1795840200000 implements MigrationInterface {
  name = 'ApplicationSsfReceiver1795840200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('applications', new TableColumn({ name: 'ssf_receiver', type: 'boolean', isNullable: false, default: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'ssf_receiver');
  }
}
