import type { Adapter } from 'oidc-provider';
import { AuditedRemoval } from '../adapter/audited-removal.js';
import { ClientStore } from '../adapter/client.store.js';
import { OidcPayloadAdapter } from '../adapter/oidc-payload.adapter.js';
import { storeSessionBeforeApproval } from '../device/session-before-approval.js';
import { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { publicPart, signingAlg } from './provider-deps.js';
import type { ProviderDeps } from './provider-deps.js';

/** Where the provider keeps its models: clients in their own store, every other model in the payload table. */
export interface ProviderAdapters {
  clients: ClientStore;
  /** Which JWT access tokens are this instance's own (by the published keys). */
  jwtIds: JwtTokenIds;
  adapterFor: (name: string) => Adapter;
}

/** The adapters part of the provider (src/oidc/adapter): one client store per provider, one payload adapter per model. */
export function providerAdapters(deps: ProviderDeps): ProviderAdapters {
  const { dataSource, hasher } = deps;
  const clients = new ClientStore(dataSource, deps.issuer, signingAlg(deps), deps.remoteClientKeys, deps.agentDocuments, {
    uow: deps.uow,
    events: deps.events,
    bounds: deps.registrationBounds,
  });
  const jwtIds = new JwtTokenIds(deps.keys.map(publicPart), deps.issuer, deps.reloadKeys);
  const audit = new AuditedRemoval(deps.uow, deps.events, deps.sessionEnds);
  const beforeDeviceApproval = () => storeSessionBeforeApproval(deps.instance.refreshTokenAbsoluteLifetime);
  const adapterFor = (name: string): Adapter =>
    name === 'Client' ? clients : new OidcPayloadAdapter(name, dataSource, hasher, deps.uow, jwtIds, audit, beforeDeviceApproval);
  return { clients, jwtIds, adapterFor };
}
