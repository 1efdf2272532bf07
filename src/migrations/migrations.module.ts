import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { MigrationsController } from './api/migrations.controller.js';
import { MigrationReports } from './migration-reports.js';
import { ClientServices, MigrationRunner } from './migration-runner.service.js';

/**
 * Moving in (docs/migrating.md): exports of Keycloak read into organizations, users, authenticators and groups,
 * keyed by the source's ids. It owns `migration_runs` and `migrated_objects`, and writes the domain through `users`.
 */
@Module({
  imports: [UsersModule],
  controllers: [MigrationsController],
  providers: [MigrationRunner, MigrationReports, ClientServices],
})
export class MigrationsModule {}
