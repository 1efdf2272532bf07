import { Injectable } from '@nestjs/common';
import { AgentClientLapse } from '../agents/registration/agent-client-lapse.js';
import { OidcPurgeSchedule } from './adapter/oidc-purge.schedule.js';

/** The agents feature's part in the provider's schedules: lapsed registrations go with the purge of expired rows. */
@Injectable()
export class AgentWiring {
  constructor(schedule: OidcPurgeSchedule, lapse: AgentClientLapse) {
    schedule.alsoPurge((uow, now) => lapse.purge(uow, now));
  }
}
