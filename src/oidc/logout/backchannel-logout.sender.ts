import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import type { EndedSessions } from '../../common/auth/session-ends.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig, BackchannelLogoutConfig } from '../../common/config/config.js';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { AppLogger } from '../../common/http/logging.js';
import { newId } from '../../common/ids.js';
import { NonPublicTargetError } from '../../common/net/outbound-address.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { RowOutbox, Undeliverable } from '../../common/operations/row-outbox.js';
import type { OutboxAdapter } from '../../common/operations/row-outbox.js';
import { backchannelLogoutApp, backchannelLogoutAppsOf } from '../../users/queries/backchannel-logout-apps.js';
import type { BackchannelLogoutApp } from '../../users/queries/backchannel-logout-apps.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { DUE_BATCH, insertLogout, LOGOUT_STATEMENTS, owedLogout } from './backchannel-logout.queries.js';
import type { OwedLogout } from './backchannel-logout.queries.js';
import { signLogoutToken } from './logout-token.js';

/** The longest an RP may take to answer; at most half the lease, so no attempt outlives its lease. */
const SEND_TIMEOUT_MS = 10_000;

/** A held logout token and its application; none when the application's URI was removed since it was queued. */
interface HeldLogout extends OwedLogout {
  app: BackchannelLogoutApp | undefined;
}

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oauth-profiles.md, "Back-channel logout"). Whenever sessions end (a sign-out at
 * end-session, an administrator or the user ending one, a user deactivated, locked, removed or given a new password:
 * SessionEnds), one row per application with a `backchannelLogoutUri` and per session that signed in to it is written
 * in that transaction. Every process sends due rows through a RowOutbox — one at a time, under a lease in the row, so
 * two processes never send one at once, and a row held by a process that died is sent by another once its lease ends
 * — as a Logout Token (logout-token.ts) POSTed under the outbound address rules (docs/webhooks.md: no private networks
 * unless allowed, no redirects, a timeout, a bounded answer). 200 or 204 is delivered (§2.8); anything else is retried
 * on the webhooks' schedule (first after about 5 s, doubling, for 24 h), then `failed` with the event
 * `project.application.logout.failed`. A URI refused by the address rules fails at once. oidc-provider itself sends
 * nothing (provider/extensions/backchannel-logout.ts).
 */
@Injectable()
export class BackchannelLogoutSender implements OnApplicationBootstrap, OnModuleDestroy, OutboxAdapter<HeldLogout> {
  readonly name = 'back-channel logout sender';
  readonly statements = LOGOUT_STATEMENTS;
  readonly batch = DUE_BATCH;
  readonly settings: BackchannelLogoutConfig;
  /** A retry due before the next poll (BACKCHANNEL_LOGOUT_POLL_MS) is sent then: an RP's session ends soon after. */
  readonly wakesForRetries = true;
  private readonly post: ReturnType<typeof outboundFetch>;
  private readonly outbox: RowOutbox<HeldLogout>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly keys: SigningKeysService,
    logger: AppLogger,
    availability: DatabaseAvailability,
    private readonly pairwise: PairwiseSubjects,
    sessionEnds: SessionEnds,
  ) {
    this.settings = config.backchannelLogout;
    const timeoutMs = Math.min(SEND_TIMEOUT_MS, Math.floor(config.backchannelLogout.leaseMs / 2));
    this.post = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs, maxBodyBytes: 64 * 1024 });
    this.outbox = new RowOutbox(this, { uow, logger, availability });
    sessionEnds.listen((manager, ended) => this.enqueue(manager, ended));
  }

  onApplicationBootstrap(): void {
    this.outbox.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.outbox.stop();
  }

  /** One logout token per ended session and application registered for back-channel logout, in the caller's transaction. */
  private async enqueue(manager: EntityManager, ended: EndedSessions): Promise<void> {
    const clientIds = [...new Set(ended.signIns.map((s) => s.clientId))];
    const apps = new Map((await backchannelLogoutAppsOf(manager, clientIds)).map((app) => [app.clientId, app]));
    if (apps.size === 0) return;
    const now = Date.now();
    for (const signIn of ended.signIns) {
      const app = apps.get(signIn.clientId);
      if (app) await insertLogout(manager, { id: newId(), appId: app.appId, userId: ended.userId, sid: signIn.sid ?? null }, now);
    }
    this.outbox.queued(manager);
  }

  async held(manager: EntityManager, id: string): Promise<HeldLogout | undefined> {
    const logout = await owedLogout(manager, id);
    return logout && { ...logout, app: await backchannelLogoutApp(manager, logout.appId) };
  }

  /** One POST of a freshly signed token (§2.5); resolves when the RP answered 200 or 204 (§2.8). */
  async send(logout: HeldLogout): Promise<'sent' | 'dropped'> {
    // Its URI was removed since: the application no longer wants logout tokens.
    if (!logout.app) return 'dropped';
    const app = logout.app;
    const [signer] = (await this.keys.keySet()).jwks;
    if (!signer) throw new Error('no signing key');
    const token = await signLogoutToken(signer, {
      issuer: this.config.publicUrl,
      clientId: app.clientId,
      sub: this.pairwise.subjectFor(app, logout.userId),
      sid: logout.sid,
      jti: logout.id,
    });
    let answer: Response;
    try {
      answer = await this.post(app.logoutUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      });
    } catch (error) {
      if (error instanceof NonPublicTargetError) {
        throw new Undeliverable(
          `backchannelLogoutUri refused by the outbound address rules (docs/webhooks.md): ${error.message.replace(/; set .*$/, '')}; such URIs need OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`,
        );
      }
      throw error;
    }
    if (answer.status !== 200 && answer.status !== 204) throw new Error(`the backchannelLogoutUri answered ${answer.status}`);
    return 'sent';
  }

  /** The client and the error only: never the token, and not the URI (it may carry a secret of the RP's). */
  notSent(logout: HeldLogout): string {
    return `back-channel logout ${logout.id} to client ${logout.app!.clientId} not delivered`;
  }

  async gaveUp(manager: EntityManager, logout: HeldLogout, error: string): Promise<void> {
    const app = logout.app!;
    await this.events.push(manager, {
      type: 'project.application.logout.failed',
      aggregateType: 'application',
      aggregateId: app.appId,
      resourceOwner: app.orgId,
      editorUserId: null,
      payload: { clientId: app.clientId, userId: logout.userId, logoutId: logout.id, attempts: logout.attempts + 1, error },
    });
  }
}
