import { createPublicKey, randomBytes } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { applicationKeyRows, clientRows } from '../../users/queries/oidc-clients.js';
import { grantsIssueRefreshTokens } from '../../users/oidc-application.rules.js';
import type { ClientKeyRow as KeyRow, ClientRow } from '../../users/queries/oidc-clients.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { allowedScopes } from '../provider/scopes.js';
import { JWT_BEARER_GRANT } from '../tokens/grant-types.js';
import { flag, json, millis } from '../../common/database/column-values.js';
import { verificationKeys } from '../../common/crypto/client-jwks.js';
import type { ClientJwks } from '../../common/crypto/client-jwks.js';
import type { RemoteClientKeys } from './remote-client-keys.js';
import { isClientIdUrl } from '../../agents/metadata-documents/client-id-url.js';
import type { ClientIdMetadataDocuments } from '../../agents/metadata-documents/client-id-metadata-documents.js';
import { AGENT_CLIENT_MARKER } from '../../agents/metadata-documents/metadata-document.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import {
  DYNAMIC_CLIENT_LAPSE_MS,
  RegistrationTokenUsedUp,
  addDynamicClient,
  dynamicClientRow,
  touchDynamicClient,
  updateDynamicClient,
} from '../../agents/registration/dynamic-clients.queries.js';
import type { DynamicClientRow } from '../../agents/registration/dynamic-clients.queries.js';
import { registrationOrganizationOfRequest, registrationTokenUsedUp } from '../../agents/registration/dynamic-registration.js';
import { AGENT_CLIENT_PREFIX, DCR_AGENT, assertAgentClientMetadata, withoutOwnMetadata } from '../../agents/registration/registration-metadata.js';
import { removeAgentClient } from '../../agents/registration/agent-client-removal.js';
import { revokeIssuedTo } from './client-payloads.js';
import { refusedPastBound } from '../../agents/registration/registration-bounds.js';
import type { DynamicRegistrationBounds } from '../../common/config/config.js';
import { CIMD_AGENT, clientKindOf } from '../../login/client-kind.js';
import type { ClientKind, KindedClient } from '../../login/client-kind.js';

/** Our own client metadata (oidc-provider `extraClientMetadata`), read by policies and the audience rule. */
export const CLIENT_EXTRA = [
  'portcullis_kind',
  'portcullis_org_id',
  'portcullis_project_id',
  'portcullis_dev_mode',
  'portcullis_access_token_type',
  'portcullis_userinfo_assertion',
  'portcullis_api_access',
  'portcullis_request_object_requires_exp',
  'portcullis_resource_uri',
  // `cimd` | `dcr`: the client registered itself and asks each person's consent (docs/agents.md, "Consent and connected agents").
  AGENT_CLIENT_MARKER,
  'portcullis_app_id',
  'portcullis_access',
  'portcullis_home_url',
] as const;

/**
 * How long a process reuses a client registration it read. A change to an application, a machine
 * user's secret or a client key (new, replaced or removed) therefore applies within this time in every
 * other process (a replaced secret keeps working there for at most this long); the process that made
 * the change forgets the registration at once (forgetClient). Only registrations that exist are kept,
 * so a new client works at once; token validity and user state are never cached.
 */
export const CLIENT_CACHE_MS = 1_000;
const CLIENT_CACHE_MAX = 10_000;

/**
 * One cache per database and process, shared by the stores of every provider ProviderHolder builds (a
 * registration does not depend on the signing keys). `forgotten` holds when each client was last
 * forgotten, so a read that started before a change committed is not cached after it.
 */
interface ClientCache {
  entries: Map<string, { at: number; registration: Registration }>;
  forgotten: Map<string, number>;
}
const caches = new WeakMap<DataSource, ClientCache>();

function cacheOf(dataSource: DataSource): ClientCache {
  let cache = caches.get(dataSource);
  if (!cache) caches.set(dataSource, (cache = { entries: new Map(), forgotten: new Map() }));
  return cache;
}

/** Drops the cached registration of a client whose application, secret or keys just changed (this process). */
export function forgetClient(dataSource: DataSource, clientId: string): void {
  const { entries, forgotten } = cacheOf(dataSource);
  entries.delete(clientId);
  if (forgotten.size >= CLIENT_CACHE_MAX) forgotten.clear();
  forgotten.set(clientId, Date.now());
}

interface Registration {
  row: ClientRow;
  /** The public keys of a private_key_jwt application (JWKs): its own, or those registered through `…/keys`. */
  keys: object[];
  payloads: Map<string, AdapterPayload | undefined>;
}

/**
 * What a client is, by its id alone (a token's client, where no request found it): clientKindOf over the marks its
 * registration carries (find), read from the same rows, so the audience and the boundary get one answer. An id of
 * no client, or of a machine user no longer active, is of no kind: it is allowed nothing a kind would allow.
 */
export async function clientKindById(dataSource: DataSource, clientId: string): Promise<ClientKind> {
  if (isClientIdUrl(clientId)) return clientKindOf({ [AGENT_CLIENT_MARKER]: CIMD_AGENT });
  const rows = await clientRows(dataSource, clientId);
  const row = rows.find((r) => r.src === 'app') ?? rows[0];
  if (row) return clientKindOf(kindMarks(row));
  return clientId.startsWith(AGENT_CLIENT_PREFIX) ? clientKindOf({ [AGENT_CLIENT_MARKER]: DCR_AGENT }) : 'unknown';
}

/** The metadata clientKindOf reads, as every registration built from a row carries it. */
function kindMarks(row: ClientRow): KindedClient {
  return row.src === 'app' ? { portcullis_kind: row.kind ?? undefined, portcullis_api_access: flag(row.api_access) } : { portcullis_kind: 'machine' };
}

/**
 * Read-only view of clients for oidc-provider: OIDC and API applications by client id, and machine
 * users (client id = user id) for client_credentials. `client_secret` carries the stored keyed hash;
 * the provider compares presented secrets through SecretHasher (see provider/extensions/client-secret.ts), so no
 * secret is ever held in clear. One statement per look-up, reused for CLIENT_CACHE_MS (see above).
 */
export class ClientStore implements Adapter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly issuer: string,
    /** The algorithm the instance signs with now (SIGNING_ALG): a JARM algorithm the application chose must be it. */
    private readonly signingAlg: string,
    private readonly remoteKeys: RemoteClientKeys,
    /** Clients known by their metadata document (docs/agents.md, "Client ID Metadata Documents"). */
    private readonly agents?: ClientIdMetadataDocuments,
    /** Where clients that register themselves (RFC 7591) are written, with their events, and how many are held at most. */
    private readonly registrations?: { uow: UnitOfWork; events: EventStore; bounds: DynamicRegistrationBounds },
  ) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    if (isClientIdUrl(clientId)) return this.documentClient(clientId);
    const registration = await this.registration(clientId);
    if (!registration) return this.registeredClient(clientId);
    // Built once per registration and variant: oidc-provider keeps one Client per distinct payload.
    const variant = registration.row.src === 'app' ? 'app' : machineVariant();
    if (!registration.payloads.has(variant)) {
      const payload =
        variant !== 'app'
          ? machineClient(registration.row, variant)
          : registration.row.kind === 'saml'
            ? samlClient(registration.row, this.issuer)
            : applicationClient(registration, this.signingAlg);
      registration.payloads.set(variant, payload);
    }
    return registration.payloads.get(variant);
  }

  /**
   * A client id URL's client, from its metadata document. When it is the client of the request being handled, a
   * refused document is told as invalid_client with its reason, or invalid_client_metadata for a refused member's
   * value such as its name (the authorization endpoint shows it on its error page, with no redirect); elsewhere (a
   * token's client looked up again) the client is simply unknown.
   */
  private async documentClient(clientId: string): Promise<AdapterPayload | undefined> {
    if (!this.agents) return undefined;
    const lookup = await this.agents.lookup(clientId);
    if ('metadata' in lookup) return withVerificationKeys(lookup.metadata);
    if (currentContext()?.oidc?.params?.client_id !== clientId) return undefined;
    if (lookup.error === 'invalid_client_metadata') throw new errors.InvalidClientMetadata(`client_id metadata document refused: ${lookup.problem}`);
    throw new errors.InvalidClient(`client_id metadata document refused: ${lookup.problem}`);
  }

  private async registration(clientId: string): Promise<Registration | undefined> {
    const now = Date.now();
    const { entries: cache, forgotten } = cacheOf(this.dataSource);
    const cached = cache.get(clientId);
    if (cached && now - cached.at < CLIENT_CACHE_MS) return cached.registration;
    const rows = await clientRows(this.dataSource, clientId);
    const row = rows.find((r) => r.src === 'app') ?? rows[0];
    if (!row) {
      cache.delete(clientId);
      return undefined;
    }
    const keys = row.src === 'app' && row.auth_method === 'private_key_jwt' ? await this.keysOf(row) : [];
    const registration = { row, keys, payloads: new Map() };
    // Read before the client was last forgotten: the change may have committed after this read.
    if ((forgotten.get(clientId) ?? -1) >= now) return registration;
    if (cache.size >= CLIENT_CACHE_MAX) cache.clear();
    cache.set(clientId, { at: now, registration });
    return registration;
  }

  /**
   * An application's own keys, inline or read from its jwks_uri (remote-client-keys.ts), else the keys registered
   * through the management API (docs/oauth-profiles.md, "Client keys": an application has one kind or the other).
   */
  private async keysOf(row: ClientRow): Promise<object[]> {
    if (row.jwks_uri) return this.remoteKeys.keysAt(row.jwks_uri);
    const own = json<ClientJwks | null>(row.jwks, null);
    if (own) return own.keys;
    return registeredJwks(await applicationKeyRows(this.dataSource, row.id));
  }

  /**
   * A client that registered itself (docs/agents.md, "Dynamic registration"), read on every use, never cached: one
   * unused for DYNAMIC_CLIENT_LAPSE_MS, or of an organization that since turned registrations off, is no client.
   */
  private async registeredClient(clientId: string): Promise<AdapterPayload | undefined> {
    if (!clientId.startsWith(AGENT_CLIENT_PREFIX)) return undefined;
    const row = await dynamicClientRow(this.dataSource, clientId);
    const now = Date.now();
    if (!row || now - row.last_used_at > DYNAMIC_CLIENT_LAPSE_MS) return undefined;
    if (row.org_id !== null && row.mode !== 'initialAccessToken' && row.mode !== 'open') return undefined;
    await touchDynamicClient(this.registrations!.uow, clientId, row.last_used_at, now);
    return agentPayload(row);
  }

  /**
   * Applications are managed by the management API; only oidc-provider's registration (RFC 7591 §3) and update
   * (RFC 7592 §2.2) store a client: one that registered itself, checked against the agent rules once more with the
   * metadata it ends up with, and a new one against the bounds of the registrations held (registration-bounds.ts).
   */
  async upsert(clientId: string, payload: AdapterPayload): Promise<void> {
    const route = currentContext()?.oidc?.route;
    if (route !== 'registration' && route !== 'client_update') return;
    const metadata = withoutOwnMetadata({ ...payload });
    assertAgentClientMetadata(metadata);
    const { uow, events, bounds } = this.registrations!;
    if (route === 'client_update') return updateDynamicClient(uow, clientId, metadata);
    const { orgId, tokenHash } = registrationOrganizationOfRequest() ?? { orgId: null };
    try {
      await refusedPastBound(() => addDynamicClient(uow, events, { clientId, orgId, metadata, tokenHash }, bounds, Date.now()));
    } catch (error) {
      throw error instanceof RegistrationTokenUsedUp ? registrationTokenUsedUp() : error;
    }
  }

  /** RFC 7592 §2.3: a client that registered itself deletes its registration. */
  async destroy(clientId: string): Promise<void> {
    if (currentContext()?.oidc?.route === 'client_delete')
      await removeAgentClient(this.registrations!.uow, this.registrations!.events, clientId, 'deleted', (manager) => revokeIssuedTo(manager, clientId));
  }

  // The remaining adapter methods do not apply to clients.
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/**
 * docs/product-rules.md lets a machine user send its secret in a Basic header or in the body; oidc-provider holds one
 * method per client, so the method is the one this request uses (still exactly one per request).
 */
function machineAuthMethod(): 'client_secret_basic' | 'client_secret_post' {
  const ctx = currentContext();
  return ctx?.headers?.authorization ? 'client_secret_basic' : 'client_secret_post';
}

/** oidc-provider exposes the request being handled through its AsyncLocalStorage (Provider.ctx). */
function currentContext(): { headers?: Record<string, string | undefined>; oidc?: { route?: string; params?: Record<string, unknown> } } | undefined {
  return Provider.ctx;
}

/**
 * A registered agent: what it registered, with the scopes of a third-party application (never the Portcullis API)
 * and its organization once bound; `portcullis_agent` tells the consent page it is an unverified registration.
 */
/** A metadata document's keys as oidc-provider verifies with them (client-jwks.ts, verificationKeys). */
function withVerificationKeys(metadata: AdapterPayload): AdapterPayload {
  const keys = (metadata.jwks as { keys?: object[] } | undefined)?.keys;
  return Array.isArray(keys) ? { ...metadata, jwks: { keys: verificationKeys(keys) } } : metadata;
}

function agentPayload(row: DynamicClientRow): AdapterPayload {
  const metadata = withoutOwnMetadata(json<Record<string, unknown>>(row.metadata, {}));
  return {
    ...metadata,
    client_id: row.client_id,
    scope: allowedScopes(false),
    require_auth_time: true,
    portcullis_kind: 'oidc',
    portcullis_agent: DCR_AGENT,
    portcullis_access_token_type: 'opaque',
    ...(row.org_id !== null ? { portcullis_org_id: row.org_id } : {}),
  };
}

function applicationClient({ row, keys }: Registration, signingAlg: string): AdapterPayload {
  const api = row.kind === 'api';
  const authMethod = row.auth_method ?? 'client_secret_basic';
  const allGrants = json<string[]>(row.grant_types, []);
  const ownGrants = api ? [] : allGrants.filter((g) => g !== 'refresh_token' || grantsIssueRefreshTokens(allGrants));
  // A Shared Signals receiver gets its `ssf.manage` tokens by client credentials (docs/signals.md, "Receivers"); the
  // grant gives an application nothing else (resource-indicators.ts, clientCredentialsOfApplication).
  const grantTypes = flag(row.ssf_receiver) && authMethod !== 'none' ? [...ownGrants, 'client_credentials'] : ownGrants;
  return {
    client_id: row.client_id,
    client_name: row.name,
    ...(row.secret ? { client_secret: row.secret } : {}),
    token_endpoint_auth_method: authMethod,
    // Introspection accepts client_secret_basic and private_key_jwt only (docs/product-rules.md, "OpenID Connect and OAuth").
    introspection_endpoint_auth_method: authMethod === 'client_secret_post' ? 'client_secret_basic' : authMethod,
    revocation_endpoint_auth_method: authMethod,
    redirect_uris: api ? [] : json<string[]>(row.redirect_uris, []),
    post_logout_redirect_uris: api ? [] : json<string[]>(row.post_logout_redirect_uris, []),
    response_types: api ? [] : json<string[]>(row.response_types, []),
    grant_types: grantTypes,
    application_type: 'web',
    // auth_time in every ID token (OIDC Registration §2), as relying parties of ZITADEL expect.
    require_auth_time: true,
    ...(authMethod === 'private_key_jwt' ? { jwks: { keys: verificationKeys(keys) } } : {}),
    ...kindMarks(row),
    portcullis_org_id: row.org_id,
    portcullis_project_id: row.project_id,
    ...entryMetadata(row),
    portcullis_dev_mode: flag(row.dev_mode),
    portcullis_access_token_type: row.access_token_type,
    portcullis_userinfo_assertion: flag(row.id_token_userinfo_assertion),
    scope: allowedScopes(flag(row.api_access), flag(row.ssf_receiver)),
    ...(api && row.resource_uri ? { portcullis_resource_uri: row.resource_uri } : {}),
    ...(api ? {} : profileMetadata(row, signingAlg)),
  };
}

/**
 * Who may enter the application, read with the registration (docs/product-rules.md, "Application access"): the doors
 * ask for a grant only when it is `granted`, so an application open to everyone costs no query. Its `homeUrl` is the
 * way back from a refused sign-in's page.
 */
function entryMetadata(row: ClientRow): AdapterPayload {
  return {
    portcullis_app_id: row.id,
    portcullis_access: row.access === 'granted' ? 'granted' : 'everyone',
    ...(row.home_url ? { portcullis_home_url: row.home_url } : {}),
  };
}

/** The settings of docs/oauth-profiles.md as client metadata (RFC 9126 §6, RFC 9101 §10.5, JARM §3, RFC 9449 §5.2, OIDC BCL §2.2). */
function profileMetadata(row: ClientRow, signingAlg: string): AdapterPayload {
  // An algorithm chosen before SIGNING_ALG changed has no key any more: the instance's own applies then.
  const jarmAlg = row.authorization_signed_response_alg === signingAlg ? signingAlg : undefined;
  return {
    require_pushed_authorization_requests: flag(row.require_par),
    require_signed_request_object: flag(row.require_signed_request_object),
    portcullis_request_object_requires_exp: flag(row.request_object_requires_exp),
    ...(jarmAlg ? { authorization_signed_response_alg: jarmAlg } : {}),
    dpop_bound_access_tokens: flag(row.dpop_bound_access_tokens),
    // OIDC Core §8: pairwise clients get the `sub` of their sector (provider-configuration.ts, pairwiseIdentifier).
    subject_type: row.subject_type === 'pairwise' ? 'pairwise' : 'public',
    // Logout tokens are sent by the outbox (src/oidc/logout), never by oidc-provider (extensions/backchannel-logout.ts).
    ...(row.backchannel_logout_uri
      ? { backchannel_logout_uri: row.backchannel_logout_uri, backchannel_logout_session_required: flag(row.backchannel_logout_session_required) }
      : {}),
  };
}

/**
 * A SAML application's hidden client (docs/saml.md, "Single sign-on"): SSO runs an ordinary authorization of it, so that the login UI,
 * second factor, session and organization rule are the OIDC ones. It redirects only to its organization's SAML
 * continue URL, where the SAML module takes the code itself (saml/sso); no one can authenticate as it at the token
 * endpoint (its secret is random and never told), so no token is ever issued to it.
 */
function samlClient(row: ClientRow, issuer: string): AdapterPayload {
  return {
    client_id: row.client_id,
    client_name: row.name,
    client_secret: randomBytes(32).toString('base64url'),
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [idpEndpoints(issuer, row.org_id).continueUrl],
    post_logout_redirect_uris: [],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    application_type: 'web',
    portcullis_kind: 'saml',
    portcullis_org_id: row.org_id,
    portcullis_project_id: row.project_id,
    ...entryMetadata(row),
    scope: 'openid',
  };
}

type MachineVariant = 'jwt-profile' | 'client_secret_basic' | 'client_secret_post';

/** How this request authenticates a machine user: by a JWT profile assertion, or by its secret (see machineAuthMethod). */
function machineVariant(): MachineVariant {
  const ctx = currentContext();
  // JWT profile grant: the assertion is the credential; the grant verifies it (jwt-profile.grant.ts).
  if (ctx?.oidc?.params?.grant_type === JWT_BEARER_GRANT && !ctx?.headers?.authorization) return 'jwt-profile';
  // Userinfo authenticates no client: a token's machine user is its client, with a secret or keys only.
  if (ctx?.oidc?.route === 'userinfo') return 'jwt-profile';
  return machineAuthMethod();
}

/** A machine user with a client secret can use client_credentials (docs/product-rules.md, "OpenID Connect and OAuth"). */
function machineClient(row: ClientRow, variant: MachineVariant): AdapterPayload | undefined {
  const base = {
    client_id: row.id,
    client_name: row.name,
    redirect_uris: [],
    response_types: [],
    ...kindMarks(row),
    portcullis_org_id: row.org_id,
    portcullis_access_token_type: row.access_token_type ?? 'opaque',
  };
  if (variant === 'jwt-profile') return { ...base, token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT] };
  if (!row.secret) return undefined;
  return { ...base, client_secret: row.secret, token_endpoint_auth_method: variant, grant_types: ['client_credentials', JWT_BEARER_GRANT] };
}

/** Registered public keys of a private_key_jwt application that have not expired. */
function registeredJwks(keys: KeyRow[]): object[] {
  const now = Date.now();
  return keys
    .filter((k) => {
      const expiresAt = millis(k.expires_at);
      return expiresAt === null || expiresAt > now;
    })
    .map((k) => ({ ...createPublicKey(k.public_key).export({ format: 'jwk' }), kid: k.id, use: 'sig' }));
}
