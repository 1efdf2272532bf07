import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SessionEnds } from '../../common/auth/session-ends.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { LoginRateLimiter } from '../../login/login-rate-limiter.js';
import { instanceSettings } from '../../users/queries/instance.js';
import { RemoteClientKeys } from '../adapter/remote-client-keys.js';
import { ClientIdMetadataDocuments } from '../../agents/metadata-documents/client-id-metadata-documents.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import type { ProviderDeps } from './provider-deps.js';
import type { AgentRegistrationSettings } from './authorization-server-metadata.js';
import { ProviderUserServices } from './provider-user-services.js';
import { allowedScopes } from './scopes.js';

/**
 * Everything createProvider (provider.factory.ts) needs besides the signing keys, gathered so that
 * ProviderHolder receives one collaborator instead of each service (docs/architecture.md, "Constructor width").
 */
@Injectable()
export class ProviderInputs {
  /** One per process, kept across rebuilds of the provider: keys read from applications' jwks_uri. */
  private readonly remoteClientKeys: RemoteClientKeys;
  /** One per process, kept across rebuilds: clients' metadata documents (docs/agents.md, "Client ID Metadata Documents"). */
  private readonly agentDocuments: ClientIdMetadataDocuments;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly sessionEnds: SessionEnds,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly users: ProviderUserServices,
  ) {
    this.remoteClientKeys = new RemoteClientKeys({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, cacheMs: config.clientJwksCacheMs });
    this.agentDocuments = new ClientIdMetadataDocuments(
      { allowPrivateNetworks: config.outboundAllowPrivateNetworks, scope: allowedScopes(false) },
      this.remoteClientKeys,
      () => this.users.loginPolicies.anyAgentClients(),
    );
  }

  /** What the RFC 8414 metadata says of agent clients' registration (authorization-server-metadata.ts). */
  readonly agentRegistration: AgentRegistrationSettings = {
    anyAgentClients: () => this.users.loginPolicies.anyAgentClients(),
  };

  /**
   * The provider's inputs for these signing keys, with the instance's settings as they are now.
   * `reloadKeys` answers the published keys (public parts) as they are in the database.
   */
  async forKeys(keys: PrivateJwk[], reloadKeys: () => Promise<object[]>): Promise<ProviderDeps> {
    const instance = await instanceSettings(this.dataSource.manager);
    if (!instance) throw new Error('the instance row is missing: the database was not bootstrapped');
    return {
      issuer: this.config.publicUrl,
      dataSource: this.dataSource,
      hasher: this.hasher,
      accounts: this.users.accounts,
      keys,
      reloadKeys,
      instance,
      features: this.users.features,
      access: this.users.access,
      entry: this.users.entry,
      uow: this.uow,
      events: this.events,
      loginPolicy: (orgId) => this.users.loginPolicies.get(orgId),
      sessionEnds: this.sessionEnds,
      device: { pollIntervalSeconds: this.config.devicePollIntervalSeconds, userCodeLimiter: this.rateLimiter },
      remoteClientKeys: this.remoteClientKeys,
      agentDocuments: this.agentDocuments,
      registrationLimiter: this.rateLimiter,
      registrationBounds: this.config.dynamicRegistrationBounds,
      idJag: this.users.idJag,
      lifetimes: { refresh: () => this.users.settings.refreshWithoutWaiting(), of: (clientId) => this.users.settings.lifetimesOf(clientId) },
    };
  }
}
