import { Injectable } from '@nestjs/common';
import { OidcPurgeSchedule } from '../../oidc/adapter/oidc-purge.schedule.js';
import { removeExpiredRequests } from './saml-requests.js';
import { removeExpiredSamlSessions } from './saml-sessions.js';

/**
 * Expired pending requests and assertions go with the purge of expired OIDC rows (every `OIDC_PURGE_INTERVAL_MS`, one
 * process at a time), not on a sign-in's path (docs/saml.md, "Single sign-on").
 */
@Injectable()
export class SamlPurge {
  constructor(schedule: OidcPurgeSchedule) {
    schedule.alsoPurge(async (uow, now) => {
      await removeExpiredRequests(uow, now);
      await removeExpiredSamlSessions(uow, now);
    });
  }
}
