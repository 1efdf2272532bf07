import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { samlServiceProvider } from '../../users/resources/saml-settings.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { SamlKeysService } from '../keys/saml-keys.service.js';
import type { ReceivedMessage } from '../protocol/bindings.js';
import { checkLogoutRequest, logoutRequestXml, logoutResponseXml, readLogoutRequest, signedRedirectQuery } from '../protocol/logout-messages.js';
import { claimLogout, dueLogouts, markLogoutDue, removeSamlSessions, samlSessionById } from './saml-sessions.js';
import type { SamlSession } from './saml-sessions.js';
import type { SsoOutcome } from './sso.service.js';

/** How often due logouts are looked for, how many at a time, and how often one is tried before it is given up. */
const POLL_MS = 500;
const BATCH = 20;
const MAX_ATTEMPTS = 5;
/** An attempt in flight is not taken again by another process for this long; later attempts back off from it. */
const ATTEMPT_LEASE_MS = 30_000;
const SEND_TIMEOUT_MS = 5_000;

/**
 * Single logout of the SAML IdP (SAML Profiles §4.4; docs/saml.md, "Single logout").
 *
 * SP-initiated: a signed LogoutRequest ends the OIDC session its SessionIndex was issued in (as a sign-out would, event
 * `session.terminated`), and a signed LogoutResponse goes back to the SP's `sloUrl` by HTTP-Redirect.
 *
 * IdP-side: whenever sessions end (a sign-out, an administrator, a user deactivated, locked, removed or given a new
 * password: SessionEnds), their assertions are marked in that transaction, and this process sends each SP with a
 * `sloUrl` a signed LogoutRequest by HTTP-Redirect from the server (mellon finds its session by NameID; no browser is
 * needed), under the outbound address rules, retried with back-off, leased per row so two processes never send one.
 */
@Injectable()
export class SingleLogoutService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('saml');
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private readonly send: ReturnType<typeof outboundFetch>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly keys: SamlKeysService,
    sessionEnds: SessionEnds,
    @Inject(USER_TOKENS) private readonly tokens: UserTokens,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    sessionEnds.listen((manager, ended) => markLogoutDue(manager, ended, new Date()));
    this.send = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: SEND_TIMEOUT_MS, maxBodyBytes: 64 * 1024 });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => this.sendDue(), POLL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sending;
  }

  /** An SP's LogoutRequest by either binding. */
  async receive(orgId: string, message: ReceivedMessage): Promise<SsoOutcome> {
    const now = new Date();
    const { sloUrl, entityId } = idpEndpoints(this.config.publicUrl, orgId);
    let fields: ReturnType<typeof checkLogoutRequest>;
    let sp: Awaited<ReturnType<typeof samlServiceProvider>>;
    try {
      const { root, issuer } = readLogoutRequest(message);
      sp = await samlServiceProvider(this.dataSource.manager, { orgId, entityId: issuer });
      if (!sp)
        return {
          kind: 'error',
          status: 400,
          error: 'invalid_saml_request',
          description: `no SAML application of this organization has the entity id ${issuer}`,
        };
      fields = checkLogoutRequest(message, root, sp.spCertificate, sloUrl, now);
    } catch (error) {
      if (error instanceof XmlRefused) return { kind: 'error', status: 400, error: 'invalid_saml_request', description: error.message };
      throw error;
    }
    const app = sp;
    await this.uow.run(async (manager) => {
      for (const index of fields.sessionIndexes) {
        const session = await samlSessionById(manager, app.appId, index);
        if (!session || session.nameId !== fields.nameId) continue;
        await removeSamlSessions(manager, [session.id]);
        if (!(await this.tokens.endSession(manager, session.userId, session.sessionUid))) {
          await markLogoutDue(manager, { userId: session.userId, sessionUid: session.sessionUid }, now);
          continue;
        }
        await this.events.push(manager, {
          type: 'session.terminated',
          aggregateType: 'session',
          aggregateId: session.sessionUid,
          resourceOwner: orgId,
          editorUserId: session.userId,
          payload: { userId: session.userId, reason: 'saml_logout', appId: app.appId },
        });
      }
    });
    if (!app.sloUrl) return { kind: 'signedOut' };
    const xml = logoutResponseXml(entityId, app.sloUrl, fields.id, now);
    const query = signedRedirectQuery('SAMLResponse', xml, message.relayState ?? null, await this.keys.signer(now));
    return { kind: 'redirect', location: `${app.sloUrl}${app.sloUrl.includes('?') ? '&' : '?'}${query}` };
  }

  /** One pass over due logouts; a pass still running is not started again. */
  sendDue(): Promise<void> {
    this.sending ??= this.sendBatch()
      .catch((error: unknown) => this.logger.warn(`SAML logouts not sent: ${String(error)}`))
      .finally(() => (this.sending = undefined));
    return this.sending;
  }

  private async sendBatch(): Promise<void> {
    const now = new Date();
    const due = await dueLogouts(this.dataSource.manager, now, BATCH);
    for (const logout of due) {
      const retryAt = now.getTime() + ATTEMPT_LEASE_MS * 2 ** logout.attempts;
      if (!(await claimLogout(this.dataSource.manager, logout.id, logout.dueAt, retryAt))) continue;
      const delivered = await this.deliver(logout, now).catch((error: unknown) => {
        this.logger.warn(`SAML LogoutRequest to application ${logout.appId} failed: ${String(error)}`);
        return false;
      });
      if (delivered || logout.attempts + 1 >= MAX_ATTEMPTS) await removeSamlSessions(this.dataSource.manager, [logout.id]);
    }
  }

  /** True when the SP answered (any status below 500: mellon answers a LogoutResponse by redirect), or has no `sloUrl`. */
  private async deliver(logout: SamlSession, now: Date): Promise<boolean> {
    const sp = await samlServiceProvider(this.dataSource.manager, { appId: logout.appId });
    if (!sp?.sloUrl) return true;
    const { entityId } = idpEndpoints(this.config.publicUrl, sp.orgId);
    const xml = logoutRequestXml(
      entityId,
      sp.entityId,
      sp.sloUrl,
      { value: logout.nameId, format: logout.nameIdFormat, qualified: logout.nameIdQualified },
      logout.id,
      now,
    );
    const query = signedRedirectQuery('SAMLRequest', xml, null, await this.keys.signer(now));
    const answer = await this.send(`${sp.sloUrl}${sp.sloUrl.includes('?') ? '&' : '?'}${query}`, { method: 'GET', headers: {} });
    return answer.status < 500;
  }
}
