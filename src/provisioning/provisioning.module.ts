import { Module } from '@nestjs/common';
import { ScimModule } from '../scim/scim.module.js';
import { UsersModule } from '../users/users.module.js';
import { ProvisioningTargetsController } from './api/provisioning-targets.controller.js';
import { ProvisioningTargetsService } from './provisioning-targets.service.js';
import { ProvisionedGroups } from './pusher/provisioned-groups.js';
import { ProvisionedUsers } from './pusher/provisioned-users.js';
import { ProvisioningPusher } from './pusher/provisioning-pusher.js';
import { PushedRoles } from './pusher/pushed-roles.js';
import { LocalPeople } from './reconcile/local-people.js';
import { ProvisioningReconcile } from './reconcile/reconcile.service.js';

/**
 * Outbound SCIM provisioning (docs/provisioning.md): an organization's targets, under
 * `/management/v1/orgs/{orgId}/provisioning/targets`, and the pusher that brings them its users and groups. It owns
 * `provisioning_targets`, `provisioning_objects` and `provisioning_members`; users are read as the inbound SCIM API represents them.
 */
@Module({
  imports: [UsersModule, ScimModule],
  controllers: [ProvisioningTargetsController],
  providers: [ProvisioningTargetsService, ProvisioningPusher, ProvisionedUsers, ProvisionedGroups, PushedRoles, ProvisioningReconcile, LocalPeople],
})
export class ProvisioningModule {}
