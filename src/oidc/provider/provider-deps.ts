import type { DataSource } from 'typeorm';
import type { DynamicRegistrationBounds } from '../../common/config/config.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { SessionEnds } from '../../common/auth/session-ends.js';
import type { InstanceEntity } from '../../users/entities/instance.entity.js';
import type { TokenLifetimes } from '../../settings/settings.values.js';
import type { AccountFinder } from '../account/account.finder.js';
import type { RemoteClientKeys } from '../adapter/remote-client-keys.js';
import type { ClientIdMetadataDocuments } from '../../agents/metadata-documents/client-id-metadata-documents.js';
import type { AgentClientPolicy } from '../../agents/agent-organization.js';
import type { TokenExchangeDeps } from '../grants/token-exchange.grant.js';
import type { IdJagServices } from '../../agents/id-jag/id-jag.services.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import type { UserCodeLimiter } from '../device/device-flow.js';
import type { RegistrationLimiter } from '../../agents/registration/dynamic-registration.js';

/** What createProvider (provider.factory.ts) is built from; ProviderInputs (provider-inputs.ts) gathers it. */
export interface ProviderDeps extends Pick<TokenExchangeDeps, 'features' | 'access' | 'uow' | 'events' | 'entry'> {
  /** The organization's login policy, read on use (second factor; agent clients, docs/agents.md). */
  loginPolicy: (orgId: string) => Promise<{ mfa: string } & AgentClientPolicy>;
  issuer: string;
  dataSource: DataSource;
  hasher: SecretHasher;
  accounts: AccountFinder;
  keys: PrivateJwk[];
  /** The published keys as they are in the database now (public parts), for JWTs of a newer key. */
  reloadKeys?: () => Promise<object[]>;
  instance: InstanceEntity;
  /** Told when end-session ends a session (the SAML IdP's single logout). */
  sessionEnds: SessionEnds;
  /** RFC 8628 (device-flow.ts): the polling interval a device is told, and the per-IP limit of the user code page. */
  device?: { pollIntervalSeconds: number; userCodeLimiter?: UserCodeLimiter };
  /** Keys applications serve at their jwks_uri (docs/oauth-profiles.md, "Client keys"). */
  remoteClientKeys: RemoteClientKeys;
  /** Clients known by their metadata document (docs/agents.md, "Client ID Metadata Documents"); none without it. */
  agentDocuments?: ClientIdMetadataDocuments;
  /** The per-address limit of dynamic client registrations (docs/agents.md, "Dynamic registration"). */
  registrationLimiter?: RegistrationLimiter;
  /** How many registered clients are held at most, per organization and unbound (docs/agents.md, "Dynamic registration"). */
  registrationBounds: DynamicRegistrationBounds;
  /** Enterprise-managed authorization's external resources, access rule and trusted issuers (src/agents/id-jag/). */
  idJag: IdJagServices;
  /** Token lifetimes of the instance's settings and of a client's application, read on use (src/settings). */
  lifetimes: { refresh(): Promise<void>; of(clientId?: string): TokenLifetimes };
}

/** The public members of a private JWK (RFC 7518 §6.2.2, §6.3.2, RFC 8037 §2). */
export function publicPart(jwk: PrivateJwk): object {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}

/** The algorithm of the signing key, by which ID tokens, JARM responses and JWT access tokens are signed. */
export function signingAlg(deps: Pick<ProviderDeps, 'keys'>): string {
  return deps.keys[0]?.alg ?? 'RS256';
}
