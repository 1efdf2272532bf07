import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import type { EndedSessions } from '../../common/auth/session-ends.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { changedRows } from '../../common/database/changed-rows.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../../common/database/database-unavailable.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { errorMessage } from '../../common/http/failure-causes.js';
import { AppLogger } from '../../common/http/logging.js';
import { newId } from '../../common/ids.js';
import { NonPublicTargetError } from '../../common/net/outbound-address.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { PassRunner } from '../../common/operations/pass-runner.js';
import { nextRetryAt } from '../../common/operations/retry-schedule.js';
import { backchannelLogoutApp, backchannelLogoutAppsOf } from '../../users/queries/backchannel-logout-apps.js';
import type { BackchannelLogoutApp } from '../../users/queries/backchannel-logout-apps.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { CLAIM_SQL, DEFER_SQL, DROP_SQL, DUE_BATCH, dueLogouts, FAIL_SQL, insertLogout, owedLogout, PURGE_SQL, RELEASE_SQL, SENT_SQL } from './backchannel-logout.queries.js';
import type { OwedLogout } from './backchannel-logout.queries.js';
import { signLogoutToken } from './logout-token.js';

/** The longest an RP may take to answer; at most half the lease, so no attempt outlives its lease. */
const SEND_TIMEOUT_MS = 10_000;
const RETENTION_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;

/** Why an attempt failed, and whether trying again could help. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oauth-profiles.md, "Back-channel logout"). Whenever sessions end (a sign-out at
 * end-session, an administrator or the user ending one, a user deactivated, locked, removed or given a new password:
 * SessionEnds), one row per application with a `backchannelLogoutUri` and per session that signed in to it is written
 * in that transaction. Every process sends due rows — one at a time, under a lease in the row, so two processes never
 * send one at once, and a row held by a process that died is sent by another once its lease ends — as a Logout Token
 * (logout-token.ts) POSTed under the outbound address rules (src/common/net/outbound-address.ts: no private networks unless allowed, no
 * redirects, a timeout, a bounded answer). 200 or 204 is delivered (§2.8); anything else is retried on the webhooks'
 * schedule (first after about 5 s, doubling, for 24 h), then `failed` with the event
 * `project.application.logout.failed`. A URI refused by the address rules fails at once. oidc-provider itself sends
 * nothing (provider/extensions/backchannel-logout.ts).
 */
@Injectable()
export class BackchannelLogoutSender implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly owner = newId();
  private readonly send: ReturnType<typeof outboundFetch>;
  private readonly retries = new Set<NodeJS.Timeout>();
  private lastPurge = 0;
  private readonly passes: PassRunner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly keys: SigningKeysService,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
    private readonly pairwise: PairwiseSubjects,
    sessionEnds: SessionEnds,
  ) {
    const timeoutMs = Math.min(SEND_TIMEOUT_MS, Math.floor(config.backchannelLogout.leaseMs / 2));
    this.send = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs, maxBodyBytes: 64 * 1024 });
    this.passes = new PassRunner(() => this.sendDue(), (error) => this.logError(error), uow);
    sessionEnds.listen((manager, ended) => this.enqueue(manager, ended));
  }

  onApplicationBootstrap(): void {
    this.passes.poll(this.config.backchannelLogout.pollMs);
  }

  async onModuleDestroy(): Promise<void> {
    for (const retry of this.retries) clearTimeout(retry);
    await this.passes.stop();
    await this.uow.write(RELEASE_SQL, [this.owner]).catch(() => undefined);
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
    this.passes.queued();
  }

  private async sendDue(): Promise<void> {
    const now = Date.now();
    const due = await dueLogouts(this.uow.manager, now);
    let attempted = 0;
    for (const id of due) {
      if (this.passes.isStopped) return;
      const claimedAt = Date.now();
      if ((await this.uow.write(CLAIM_SQL, [this.owner, claimedAt + this.config.backchannelLogout.leaseMs, id, claimedAt])) !== 1) continue;
      const logout = await owedLogout(this.uow.manager, id);
      if (!logout) continue;
      await this.attempt(logout);
      attempted++;
    }
    // A full batch this process worked on: the rest of a backlog (an organization's users deactivated at once) next.
    if (due.length === DUE_BATCH && attempted > 0) this.passes.runAgain();
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.uow.write(PURGE_SQL, [now - RETENTION_MS]);
    }
  }

  private async attempt(logout: OwedLogout): Promise<void> {
    const app = await backchannelLogoutApp(this.uow.manager, logout.appId);
    // Its URI was removed since: the application no longer wants logout tokens.
    if (!app) return void (await this.uow.write(DROP_SQL, [logout.id, this.owner]));
    try {
      await this.deliver(app, logout);
    } catch (error) {
      const failure = error instanceof AttemptFailed ? error : new AttemptFailed(errorMessage(error), false);
      return this.failed(app, logout, failure);
    }
    await this.uow.write(SENT_SQL, [Date.now(), logout.id, this.owner]);
  }

  /** One POST of a freshly signed token (§2.5); resolves when the RP answered 200 or 204 (§2.8). */
  private async deliver(app: BackchannelLogoutApp, logout: OwedLogout): Promise<void> {
    const [signer] = (await this.keys.keySet()).jwks;
    if (!signer) throw new AttemptFailed('no signing key', false);
    const token = await signLogoutToken(signer, { issuer: this.config.publicUrl, clientId: app.clientId, sub: this.pairwise.subjectFor(app, logout.userId), sid: logout.sid, jti: logout.id });
    let answer: Response;
    try {
      answer = await this.send(app.logoutUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      });
    } catch (error) {
      if (error instanceof NonPublicTargetError) {
        throw new AttemptFailed(`backchannelLogoutUri refused by the outbound address rules: ${error.message.replace(/; set .*$/, '')}; such URIs need OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`, true);
      }
      throw error;
    }
    if (answer.status !== 200 && answer.status !== 204) throw new AttemptFailed(`the backchannelLogoutUri answered ${answer.status}`, false);
  }

  private async failed(app: BackchannelLogoutApp, logout: OwedLogout, failure: AttemptFailed): Promise<void> {
    const error = failure.message.slice(0, 500);
    const now = Date.now();
    const { retryBaseMs, retryWindowMs } = this.config.backchannelLogout;
    const next = failure.permanent ? undefined : nextRetryAt(logout.attempts + 1, logout.createdAt, now, retryBaseMs, retryWindowMs);
    // The client and the error only: never the token, and not the URI (it may carry a secret of the RP's).
    this.logger.root.warn(`back-channel logout ${logout.id} to client ${app.clientId} not delivered: ${error}${next ? `; retried at ${new Date(next).toISOString()}` : '; given up'}`);
    if (next !== undefined) {
      await this.uow.write(DEFER_SQL, [error, next, logout.id, this.owner]);
      this.wakeAt(next - now);
      return;
    }
    await this.uow.run(async (manager) => {
      // Still ours (a lease that ran out may have passed the row to another process): only then the event.
      if ((await changedRows(manager, FAIL_SQL, [error, logout.id, this.owner])) !== 1) return;
      await this.events.push(manager, {
        type: 'project.application.logout.failed',
        aggregateType: 'application',
        aggregateId: app.appId,
        resourceOwner: app.orgId,
        editorUserId: null,
        payload: { clientId: app.clientId, userId: logout.userId, logoutId: logout.id, attempts: logout.attempts + 1, error },
      });
    });
  }

  /** A retry due before the next poll is looked for then, in this process (others find it at their poll). */
  private wakeAt(delayMs: number): void {
    if (this.passes.isStopped || delayMs >= this.config.backchannelLogout.pollMs) return;
    const retry = setTimeout(() => {
      this.retries.delete(retry);
      this.passes.wake();
    }, Math.max(0, delayMs));
    retry.unref();
    this.retries.add(retry);
  }

  private logError(error: unknown): void {
    if (isDatabaseUnavailable(error)) this.availability.reportUnavailable(error);
    else this.logger.root.error(`back-channel logout sender: ${errorMessage(error)}`);
  }
}
