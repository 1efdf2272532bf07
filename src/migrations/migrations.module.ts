import { Logger, Module } from '@nestjs/common';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { FederationModule } from '../federation/federation.module.js';
import { UsersModule } from '../users/users.module.js';
import { MigrationsController } from './api/migrations.controller.js';
import { removeLeftBodies } from './api/spooled-body.js';
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
export class MigrationsModule implements OnApplicationBootstrap {
  async onApplicationBootstrap(): Promise<void> {
    const removed = await removeLeftBodies();
    if (removed > 0) new Logger(MigrationsModule.name).log(`removed ${removed} migration bodies left by a stopped process`);
  }
}
