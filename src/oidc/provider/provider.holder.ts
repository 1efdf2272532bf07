import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../../common/database/database-unavailable.js';
import { noteFailure } from '../../common/http/failure-causes.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { OIDC_ROUTES } from './oidc.routes.js';
import { createProvider } from './provider.factory.js';
import { publicPart } from './provider-deps.js';
import { registrationDeps } from './provider-agents.js';
import { registrationGate } from '../../agents/registration/dynamic-registration.js';
import { registrationAnswers } from '../../agents/registration/registration-answers.js';
import { ProviderInputs } from './provider-inputs.js';
import { DATABASE_UNAVAILABLE, requestSteps, responseSteps } from './response-steps.js';
import { completeAuthorizationServerMetadata } from './authorization-server-metadata.js';
import { BrowserSessionSteps } from '../../common/auth/browser-session-steps.js';
import { afterSessionChanges } from './browser-session-hooks.js';

/**
 * Owns this process's oidc-provider. The provider's key store is fixed at construction, so when the
 * published key set or its signer changes (a rotation by any process, or a scheduled key's time) a new
 * provider is built and swapped in; all of its state lives in the database, so nothing is lost. The key poll
 * (provider-key-poll.ts) asks for that rebuild; the purge of expired rows is src/oidc/adapter/oidc-purge.schedule.ts.
 * The holder keeps the keys, the rebuild and the failure reporting; what else createProvider needs comes from
 * ProviderInputs (provider-inputs.ts).
 */
@Injectable()
export class ProviderHolder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('oidc');
  private current: { provider: Provider; handle: (req: IncomingMessage, res: ServerResponse) => void; fingerprint: string } | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    /** The rest of createProvider's inputs (services, instance settings, the remote client keys' cache). */
    private readonly inputs: ProviderInputs,
    private readonly availability: DatabaseAvailability,
    private readonly sessionSteps: BrowserSessionSteps,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
  }

  /** Shutdown: a rebuild under way is awaited, so that it does not meet the database pool Nest closes next. */
  async onModuleDestroy(): Promise<void> {
    await this.refreshing;
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

  /** Rebuilds the provider if the key set changed since it was built (a rotation by any process, a key's time). */
  async refreshIfChanged(): Promise<void> {
    if ((await this.keys.fingerprint()) !== this.current?.fingerprint) await this.refresh();
  }

  /** Builds a provider for the current key set and swaps it in. */
  private async build(): Promise<void> {
    await this.keys.ensureSchedule();
    const { fingerprint, jwks } = await this.keys.keySet();
    const deps = await this.inputs.forKeys(jwks, () => this.reloadKeys());
    const provider = createProvider(deps);
    provider.use(aroundEveryRequest(this.config.publicUrl, this.sessionSteps));
    provider.use(completeAuthorizationServerMetadata(this.inputs.agentRegistration, deps.dataSource));
    const gate = registrationGate(registrationDeps(deps));
    provider.use((ctx: OidcContext, next: () => Promise<void>) => (ctx.method === 'POST' && ctx.path === OIDC_ROUTES.registration ? gate(ctx, next) : next()));
    provider.use(registrationAnswers(deps.dataSource));
    trustTlsOffloadingProxy(provider, this.config.publicUrl);
    provider.on('server_error', (ctx: OidcContext, error: Error) => this.noteServerError(ctx, error));
    this.current = { provider, handle: provider.callback(), fingerprint };
  }

  /** The published keys as they are in the database now (public parts), for JWTs of a newer key. */
  private async reloadKeys(): Promise<object[]> {
    // Also switch this process's signing key now rather than at the next poll.
    void this.refreshIfChanged().catch((error: unknown) => this.logger.error(`key refresh failed: ${String(error)}`));
    return (await this.keys.keySet()).jwks.map(publicPart);
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
function aroundEveryRequest(publicUrl: string, sessionSteps: BrowserSessionSteps) {
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    for (const step of requestSteps) step(ctx, publicUrl);
    await next();
    await afterSessionChanges(ctx, sessionSteps, publicUrl);
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
