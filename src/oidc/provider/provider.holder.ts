import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { DataSource } from 'typeorm';
import { Inject } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../../common/database/database-unavailable.js';
import { noteFailure } from '../../common/http/failure-causes.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { WalCheckpointer } from '../../common/database/wal-checkpointer.js';
import { EventStore } from '../../common/events/event-store.js';
import { instanceSettings } from '../../users/queries/instance.js';
import { FeaturesService } from '../../users/features.service.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { AccountFinder } from '../account/account.finder.js';
import { purgeExpiredPayloads } from '../adapter/oidc-purge.js';
import { whileLeased } from '../../common/database/leases.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import { LoginPolicyService } from '../../users/login-policy.service.js';
import { createProvider, publicPart } from './provider.factory.js';
import { RemoteClientKeys } from '../adapter/remote-client-keys.js';
import type { ProviderDeps } from './provider.factory.js';
import { DATABASE_UNAVAILABLE, requestSteps, responseSteps } from './response-steps.js';
import { SessionEnds } from '../../common/auth/session-ends.js';
import { LoginRateLimiter } from '../../login/login-rate-limiter.js';

/** The purge of expired rows runs in one process at a time; a process that dies holding the lease loses it after this. */
const PURGE_LEASE = 'oidc.purge';
const PURGE_LEASE_MS = 300_000;

/**
 * Owns this process's oidc-provider. The provider's key store is fixed at construction, so when the
 * published key set or its signer changes (a rotation by any process, or a scheduled key's time) a new
 * provider is built and swapped in; all of its state lives in the database, so nothing is lost.
 */
@Injectable()
export class ProviderHolder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('oidc');
  private current: { provider: Provider; handle: (req: IncomingMessage, res: ServerResponse) => void; fingerprint: string } | undefined;
  private timers: NodeJS.Timeout[] = [];
  private refreshing: Promise<void> | undefined;
  private purging: Promise<void> | undefined;
  private polling: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  /** One per process, kept across rebuilds of the provider: keys read from applications' jwks_uri. */
  private readonly remoteClientKeys: RemoteClientKeys;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly keys: SigningKeysService,
    private readonly accounts: AccountFinder,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly features: FeaturesService,
    private readonly access: UserAccess,
    private readonly availability: DatabaseAvailability,
    private readonly checkpointer: WalCheckpointer,
    private readonly loginPolicies: LoginPolicyService,
    private readonly sessionEnds: SessionEnds,
    private readonly rateLimiter: LoginRateLimiter,
  ) {
    this.remoteClientKeys = new RemoteClientKeys({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, cacheMs: config.clientJwksCacheMs });
  }

  async onModuleInit(): Promise<void> {
    await this.refresh();
    const poll = () => {
      this.polling ??= this.keys
        .ensureSchedule()
        .then(() => this.refreshIfChanged())
        .catch((error: unknown) => this.logger.error(`key check failed: ${String(error)}`))
        .finally(() => (this.polling = undefined));
    };
    // One purge at a time: a large backlog takes longer than the interval, in batches (purgeExpiredPayloads); and one
    // process at a time, under a lease: two would delete the same rows (on Galera, conflicting through two nodes).
    const purge = () => {
      this.purging ??= whileLeased(this.uow, PURGE_LEASE, PURGE_LEASE_MS, () =>
        purgeExpiredPayloads(this.dataSource, this.uow, { checkpointer: this.checkpointer, signal: this.stopping.signal }),
      )
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error(`purge failed: ${String(error)}`))
        .finally(() => (this.purging = undefined));
    };
    // Every process switches to a rotated or newly signing key within one poll (`KEY_POLL_MS`).
    this.timers = [setInterval(poll, this.config.keyPollMs), setInterval(purge, this.config.oidcPurgeIntervalMs)];
    for (const timer of this.timers) timer.unref();
  }

  /**
   * Shutdown (issue 33, item 25): the timers stop, a purge stops after its current batch, and both are
   * awaited, so neither meets the database pool Nest closes next ("Pool is closed").
   */
  async onModuleDestroy(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.stopping.abort();
    await Promise.allSettled([this.polling, this.purging, this.refreshing]);
  }

  get provider(): Provider {
    if (!this.current) throw new Error('the OIDC provider is not initialised');
    return this.current.provider;
  }

  /** Node request handler of the current provider. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.current) throw new Error('the OIDC provider is not initialised');
    this.current.handle(req, res);
  }

  /** Rebuilds the provider from the keys in the database (after a rotation in this process). */
  refresh(): Promise<void> {
    this.refreshing ??= this.build().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshIfChanged(): Promise<void> {
    if ((await this.keys.fingerprint()) !== this.current?.fingerprint) await this.refresh();
  }

  /** Builds a provider for the current key set and swaps it in. */
  private async build(): Promise<void> {
    await this.keys.ensureSchedule();
    const { fingerprint, jwks } = await this.keys.keySet();
    const provider = createProvider(await this.providerDeps(jwks));
    provider.use(aroundEveryRequest(this.config.publicUrl));
    trustTlsOffloadingProxy(provider, this.config.publicUrl);
    provider.on('server_error', (ctx: OidcContext, error: Error) => this.noteServerError(ctx, error));
    this.current = { provider, handle: provider.callback(), fingerprint };
  }

  private async providerDeps(jwks: PrivateJwk[]): Promise<ProviderDeps> {
    const instance = await instanceSettings(this.dataSource.manager);
    if (!instance) throw new Error('the instance row is missing: the database was not bootstrapped');
    return {
      issuer: this.config.publicUrl,
      dataSource: this.dataSource,
      hasher: this.hasher,
      accounts: this.accounts,
      keys: jwks,
      reloadKeys: async () => {
        // Also switch this process's signing key now rather than at the next poll.
        void this.refreshIfChanged().catch((error: unknown) => this.logger.error(`key refresh failed: ${String(error)}`));
        return (await this.keys.keySet()).jwks.map(publicPart);
      },
      instance,
      features: this.features,
      access: this.access,
      uow: this.uow,
      events: this.events,
      loginPolicy: (orgId) => this.loginPolicies.get(orgId),
      sessionEnds: this.sessionEnds,
      device: { pollIntervalSeconds: this.config.devicePollIntervalSeconds, userCodeLimiter: this.rateLimiter },
      remoteClientKeys: this.remoteClientKeys,
    };
  }

  /**
   * oidc-provider's `server_error` event: the request's own log line (with its request id) carries the
   * cause; a database outage is reported without a stack and answered 503 (response-steps.ts).
   */
  private noteServerError(ctx: OidcContext, error: Error): void {
    if (isDatabaseUnavailable(error)) {
      ctx.state[DATABASE_UNAVAILABLE] = true;
      this.availability.reportUnavailable(error);
      noteFailure(ctx.res, { cause: 'the database is unavailable' });
    } else {
      noteFailure(ctx.res, { cause: `oidc server_error: ${error.message}`, err: error });
    }
  }
}

/** Koa middleware around every provider request: the named steps of response-steps.ts, in order. */
function aroundEveryRequest(publicUrl: string) {
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    for (const step of requestSteps) step(ctx, publicUrl);
    await next();
    for (const step of responseSteps) step(ctx, publicUrl);
  };
}

/**
 * An https PUBLIC_URL means TLS ends at a proxy in front: Koa must read X-Forwarded-Proto, or the
 * Secure cookies cannot be set (oidc-provider's "Trusting TLS offloading proxies"). The header is
 * never the client's: common/http/public-origin.ts sets it (and Host) from PUBLIC_URL beforehand.
 */
function trustTlsOffloadingProxy(provider: Provider, publicUrl: string): void {
  provider.proxy = publicUrl.startsWith('https:');
}
