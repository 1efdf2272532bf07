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
import { isDatabaseUnavailable } from '../../common/database/database-unavailable.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { RETRY_AFTER_SECONDS } from '../../common/http/error-headers.js';
import { InstanceEntity, INSTANCE_ID } from '../../users/entities/instance.entity.js';
import { FeaturesService } from '../../users/features.service.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { AccountFinder } from '../account/account.finder.js';
import { KNOWN_ACCOUNTS_COOKIE } from '../login/known-accounts.js';
import { LOGIN_PAGE_HEADERS } from '../login/login-page.headers.js';
import { purgeExpiredPayloads } from '../adapter/typeorm.adapter.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { INTROSPECTION_FACTS } from './introspection.policy.js';
import type { IntrospectionFacts } from './introspection.policy.js';
import { OIDC_ROUTES } from './oidc.routes.js';
import { createProvider, publicPart } from './provider.factory.js';

/** How often each process looks for a rotated key (DESIGN §5: "within seconds"). */
const KEY_POLL_MS = 5_000;
const RESPONSE_MODES = new Set(['query', 'fragment', 'form_post']);
/** Koa state flag: the request failed because the database could not be reached. */
const DATABASE_UNAVAILABLE = Symbol('databaseUnavailable');

/**
 * Owns this process's oidc-provider. The provider's key store is fixed at construction, so when the
 * published key set in the database changes (rotation by any process, or the 90-day timer) a new
 * provider is built and swapped in; all of its state lives in the database, so nothing is lost.
 */
@Injectable()
export class ProviderHolder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('oidc');
  private current: { provider: Provider; handle: (req: IncomingMessage, res: ServerResponse) => void; fingerprint: string } | undefined;
  private timers: NodeJS.Timeout[] = [];
  private refreshing: Promise<void> | undefined;

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
  ) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
    const poll = () => {
      void this.keys
        .ensureCurrent()
        .then(() => this.refreshIfChanged())
        .catch((error: unknown) => this.logger.error(`key check failed: ${String(error)}`));
    };
    const purge = () => void purgeExpiredPayloads(this.dataSource).catch((error: unknown) => this.logger.error(`purge failed: ${String(error)}`));
    this.timers = [setInterval(poll, KEY_POLL_MS), setInterval(purge, this.config.oidcPurgeIntervalMs)];
    for (const timer of this.timers) timer.unref();
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearInterval(timer);
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

  private async build(): Promise<void> {
    await this.keys.ensureCurrent();
    const fingerprint = await this.keys.fingerprint();
    const instance = await this.dataSource.getRepository(InstanceEntity).findOneByOrFail({ id: INSTANCE_ID });
    const provider = createProvider({
      issuer: this.config.publicUrl,
      dataSource: this.dataSource,
      hasher: this.hasher,
      accounts: this.accounts,
      keys: await this.keys.privateJwks(),
      reloadKeys: async () => {
        // Also switch this process's signing key now rather than at the next poll.
        void this.refreshIfChanged().catch((error: unknown) => this.logger.error(`key refresh failed: ${String(error)}`));
        return (await this.keys.privateJwks()).map(publicPart);
      },
      instance,
      features: this.features,
      access: this.access,
      uow: this.uow,
      events: this.events,
    });
    provider.use((ctx: OidcContext, next: () => Promise<void>) => this.decorate(ctx, next));
    // An https PUBLIC_URL means TLS ends at a proxy in front: Koa must read X-Forwarded-Proto, or the
    // Secure cookies cannot be set (oidc-provider's "Trusting TLS offloading proxies"). The header is
    // never the client's: common/http/public-origin.ts sets it (and Host) from PUBLIC_URL beforehand.
    provider.proxy = this.config.publicUrl.startsWith('https:');
    provider.on('server_error', (ctx: OidcContext, error: Error) => {
      if (isDatabaseUnavailable(error)) ctx.state[DATABASE_UNAVAILABLE] = true;
      this.logger.error(`oidc server_error (request ${String(ctx.res.getHeader('x-request-id'))}): ${error.stack ?? error.message}`);
    });
    this.current = { provider, handle: provider.callback(), fingerprint };
  }

  /** Koa middleware around every provider request: spec §B details oidc-provider leaves to us. */
  private async decorate(ctx: OidcContext, next: () => Promise<void>): Promise<void> {
    // Spec §B: an invalid response_mode is ignored; the default for the response type applies.
    if (ctx.path === OIDC_ROUTES.authorization && typeof ctx.query.response_mode === 'string' && !RESPONSE_MODES.has(ctx.query.response_mode)) {
      const { response_mode: _ignored, ...rest } = ctx.query;
      ctx.query = rest;
    }
    // Spec §B issues a refresh token whenever offline_access is requested; OIDC Core §11 (and so
    // oidc-provider) also wants prompt=consent, which the login UI always answers, so it is implied.
    if (ctx.path === OIDC_ROUTES.authorization && typeof ctx.query.scope === 'string' && ctx.query.scope.split(' ').includes('offline_access')) {
      const prompts = new Set(String(ctx.query.prompt ?? '').split(' ').filter(Boolean));
      if (!prompts.has('none') && !prompts.has('consent')) ctx.query = { ...ctx.query, prompt: [...prompts, 'consent'].join(' ') };
    }
    await next();
    // oidc-provider's own pages (error, logout confirmation, form_post) get the login UI's headers;
    // the form_post page submits itself with an inline script, which its CSP must allow.
    // (The Content-Type's media type, without type-is's parsing on every token and introspection answer.)
    const html = ctx.response.type === 'text/html';
    if (html) {
      ctx.set({ ...LOGIN_PAGE_HEADERS });
      if (String(ctx.body).includes('<script>')) ctx.set('Content-Security-Policy', `${LOGIN_PAGE_HEADERS['Content-Security-Policy']}; script-src 'unsafe-inline'`);
    }
    // A database outage is temporary: 503 + Retry-After as on every other surface, not a 500.
    if (ctx.state[DATABASE_UNAVAILABLE] && ctx.status === 500) {
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      if (!html) ctx.body = { error: 'temporarily_unavailable', error_description: 'the database is unavailable; retry later' };
    }
    // DESIGN §5: JWKS may be cached for five minutes; retired keys stay published far longer.
    if (ctx.path === OIDC_ROUTES.jwks && ctx.status === 200) ctx.set('Cache-Control', 'public, max-age=300');
    // Logging out also forgets the browser's remembered accounts (login UI account selection).
    // (Not when oidc-provider ends a session only to switch accounts: it then returns to the authorization.)
    const switching = String(ctx.response.get('Location') ?? '').startsWith(`${this.config.publicUrl}${OIDC_ROUTES.authorization}/`);
    if (ctx.method === 'POST' && ctx.path === `${OIDC_ROUTES.end_session}/confirm` && ctx.oidc?.params?.logout && !switching) {
      ctx.append('Set-Cookie', `${KNOWN_ACCOUNTS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
    }
    const facts: IntrospectionFacts | undefined = ctx[INTROSPECTION_FACTS];
    if (facts && ctx.body?.active === true) {
      ctx.body.aud = facts.audience;
      ctx.body.username = facts.username;
      ctx.body.token_type = 'Bearer';
    }
  }
}
