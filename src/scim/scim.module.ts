import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { ScimBulkController } from './bulk/scim-bulk.controller.js';
import { ScimBulkService } from './bulk/scim-bulk.service.js';
import { ScimDiscoveryController } from './discovery/scim-discovery.controller.js';
import { ScimFallbackController } from './discovery/scim-fallback.controller.js';
import { ScimGroupsController } from './groups/scim-groups.controller.js';
import { ScimGroupsService } from './groups/scim-groups.service.js';
import { ScimUrls } from './http/scim-urls.js';
import { ScimUserRepository } from './users/scim-user.repository.js';
import { ScimUsersController } from './users/scim-users.controller.js';
import { ScimUsersService } from './users/scim-users.service.js';

/** SCIM v2 service provider (docs/product-rules.md, "SCIM"): discovery, Users, Groups, Bulk, under `/scim/v2/{orgId}`. */
@Module({
  imports: [UsersModule],
  // The fallback comes last: Express matches routes in registration order.
  controllers: [ScimDiscoveryController, ScimUsersController, ScimGroupsController, ScimBulkController, ScimFallbackController],
  providers: [ScimUrls, ScimUserRepository, ScimUsersService, ScimGroupsService, ScimBulkService],
  // Outbound provisioning (src/provisioning) sends users as this API represents them.
  exports: [ScimUserRepository],
})
export class ScimModule {}
