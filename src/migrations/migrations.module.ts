import { Module } from '@nestjs/common';
import { FederationModule } from '../federation/federation.module.js';
import { UsersModule } from '../users/users.module.js';
import { MigrationsController } from './api/migrations.controller.js';
import { MigrationReports } from './migration-reports.js';
import { ClientServices, FederationServices, MigrationRunner, PeopleServices } from './migration-runner.service.js';

/**
 * Moving in (docs/migrating.md): exports of Keycloak, Auth0 and ZITADEL read into organizations, users, authenticators and groups,
 * keyed by the source's ids. It owns `migration_runs` and `migrated_objects`, and writes the domain through `users` and `federation`.
 */
@Module({
  imports: [UsersModule, FederationModule],
  controllers: [MigrationsController],
  providers: [MigrationRunner, MigrationReports, ClientServices, PeopleServices, FederationServices],
})
export class MigrationsModule {}
