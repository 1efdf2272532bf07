import { Module } from '@nestjs/common';
import { UsersModule } from '../../users/users.module.js';
import { ExternalResourcesController } from './external-resources.controller.js';
import { ExternalResources } from './external-resources.service.js';

/** An organization's external resources (docs/agents.md, "Enterprise-managed authorization"); owns `external_resources`. */
@Module({
  imports: [UsersModule],
  controllers: [ExternalResourcesController],
  providers: [ExternalResources],
  exports: [ExternalResources],
})
export class ExternalResourcesModule {}
