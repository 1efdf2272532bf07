import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { IdpsController } from './api/idps.controller.js';
import { UserIdentitiesController } from './api/user-identities.controller.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { UserIdentitiesService } from './user-identities.service.js';

/**
 * Federation (DESIGN §14; docs/federation.md): an organization's upstream identity providers and the upstream
 * identities linked to its users. It owns `identity_providers`, `idp_domains` and `user_identities`.
 */
@Module({
  imports: [UsersModule],
  controllers: [IdpsController, UserIdentitiesController],
  providers: [IdentityProvidersService, UserIdentitiesService],
  exports: [IdentityProvidersService, UserIdentitiesService],
})
export class FederationModule {}
