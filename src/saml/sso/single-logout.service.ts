import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { PassRunner } from '../../common/operations/pass-runner.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { samlServiceProvider } from '../../users/resources/saml-settings.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { SamlKeysService } from '../keys/saml-keys.service.js';
import type { ReceivedMessage } from '../protocol/bindings.js';
import { checkLogoutRequest, logoutRequestXml, logoutResponseXml, readLogoutRequest, signedRedirectQuery } from '../protocol/logout-messages.js';
import { claimLogout, dueLogouts, markLogoutDue, removeSamlSessions, samlSessionById } from './saml-sessions.js';
import type { SamlSession } from './saml-sessions.js';
import type { SsoOutcome } from './sso.service.js';

/** How many due logouts a pass takes, and how often one is tried before it is given up. */
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
 * Logouts marked by this process are looked for once their transaction commits (PassRunner); those of other processes,
 * and retries come due, at the poll (`SAML_LOGOUT_POLL_MS`).
 */
@Injectable()
export class SingleLogoutService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('saml');
  private readonly passes: PassRunner;
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
    this.passes = new PassRunner(
      () => this.sendBatch(),
      (error) => this.logger.warn(`SAML logouts not sent: ${String(error)}`),
      uow,
    );
    sessionEnds.listen((manager, ended) => this.markDue(manager, ended));
    this.send = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: SEND_TIMEOUT_MS, maxBodyBytes: 64 * 1024 });
  }

  onModuleInit(): void {
    this.passes.poll(this.config.samlLogoutPollMs);
  }

  onModuleDestroy(): Promise<void> {
    return this.passes.stop();
  }

  /** In the transaction that ended the sessions: their assertions are due, and sent once it commits. */
  private async markDue(manager: EntityManager, ended: { userId: string; sessionUid?: string; keepSession?: string }): Promise<void> {
    if ((await markLogoutDue(manager, ended, new Date())) > 0) this.passes.queued(manager);
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
          await this.markDue(manager, { userId: session.userId, sessionUid: session.sessionUid });
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

  private async sendBatch(): Promise<void> {
    const now = new Date();
    const due = await dueLogouts(this.dataSource.manager, now, BATCH);
    // A full batch: more may be due than one pass takes; the next pass starts when this one ends.
    if (due.length === BATCH) this.passes.runAgain();
    for (const logout of due) {
      if (this.passes.isStopped) return;
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
