import type Provider from 'oidc-provider';
import { applyDeviceFlow } from '../device/device-flow.js';
import type { DeviceFlowDeps } from '../device/device-flow.js';
import { reuseClientsOfUnchangedRegistrations } from './extensions/client-reuse.js';
import { applyProviderExtensions } from './extensions/index.js';
import { useAtomicReplayDetection } from './extensions/replay-detection.js';
import { countIssuedTokens } from './token-metrics.js';
import { DpopReplayGuard } from './dpop.js';
import { explainDpopRefusals } from './dpop-errors.js';
import { completeImplicitResponses } from './implicit-response.js';
import type { ProviderAgentParts } from './provider-agents.js';
import type { ProviderAdapters } from './provider-adapters.js';
import type { ProviderDeps } from './provider-deps.js';

/** What the extensions take of the other parts. */
export interface ExtensionParts {
  adapters: ProviderAdapters;
  device: DeviceFlowDeps;
  agents: ProviderAgentParts;
  /** The clients of the configuration itself (account-client.ts), never reloaded from a registration. */
  staticClientIds: ReadonlySet<string>;
}

/**
 * The extensions part, applied to a built provider in the order oidc-provider meets them on a request: the settings
 * brought up to date, the patches of its classes (extensions/index.ts, with the agents' check at a code's save), its
 * events and the routes of the device flow and implicit responses.
 */
export function extendProvider(provider: Provider, deps: ProviderDeps, parts: ExtensionParts): void {
  // The ttl functions (provider-configuration.ts) answer synchronously: each request first brings the settings up to date.
  provider.use(async (_ctx: unknown, next: () => Promise<void>) => {
    await deps.lifetimes.refresh();
    await next();
  });
  useAtomicReplayDetection(provider, new DpopReplayGuard(deps.uow));
  reuseClientsOfUnchangedRegistrations(provider, parts.adapters.clients, parts.staticClientIds);
  applyProviderExtensions(provider, deps.hasher, parts.agents.codeCheck);
  countIssuedTokens(provider);
  explainDpopRefusals(provider);
  applyDeviceFlow(provider, parts.device);
  completeImplicitResponses(provider, deps.instance.idTokenLifetime);
}
