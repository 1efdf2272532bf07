import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { UsersModule } from '../users/users.module.js';
import { InstanceWebhooksController } from './api/instance-webhooks.controller.js';
import { OrgWebhooksController } from './api/org-webhooks.controller.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks (docs/webhooks.md): subscriptions under `/admin/v1/webhooks` and `/management/v1/orgs/{orgId}/webhooks`,
 * and the dispatcher that delivers the event log to them. It owns `webhook_subscriptions` and
 * `webhook_deliveries`; it reads events through the admin API's event search, so a webhook's body is
 * exactly the record event search returns.
 */
@Module({
  imports: [UsersModule, AdminModule],
  controllers: [InstanceWebhooksController, OrgWebhooksController],
  providers: [WebhooksService, WebhookDispatcher],
})
export class WebhooksModule {}
