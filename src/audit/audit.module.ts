import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { UsersModule } from '../users/users.module.js';
import { InstanceAuditStreamsController } from './api/instance-audit-streams.controller.js';
import { OrgAuditStreamsController } from './api/org-audit-streams.controller.js';
import { AuditStreamsService } from './audit-streams.service.js';
import { AuditStreamer } from './delivery/audit-streamer.js';

/**
 * Audit streams (docs/audit-and-signals.md): streams under `/admin/v1/audit-streams` and
 * `/management/v1/orgs/{orgId}/audit-streams`, and the streamer that delivers the event log to them as chained audit
 * records, over syslog (RFC 5425) or HTTPS. It owns `audit_streams`; it reads events through the admin API's event
 * search, as webhooks do.
 */
@Module({
  imports: [UsersModule, AdminModule],
  controllers: [InstanceAuditStreamsController, OrgAuditStreamsController],
  providers: [AuditStreamsService, AuditStreamer],
})
export class AuditModule {}
