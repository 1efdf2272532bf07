import Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { applyLibraryExtensions } from './extensions/index.js';
import { interactionRouting } from './interaction-routing.js';
import { providerAdapters } from './provider-adapters.js';
import { providerAgentParts } from './provider-agents.js';
import { providerConfiguration } from './provider-configuration.js';
import type { ProviderDeps } from './provider-deps.js';
import { extendProvider } from './provider-extensions.js';
import { deviceInputs, providerFeatures } from './provider-features.js';
import { registerGrants } from './provider-grants.js';
import { accountsAndTokens } from './provider-tokens.js';

/**
 * Builds oidc-provider for the current signing keys; ProviderHolder rebuilds it when they rotate. The provider is a
 * list of named parts, each in a file of its own:
 * - configuration (provider-configuration.ts): keys, cookies, scopes, claims, algorithms, lifetimes, discovery;
 * - adapters (provider-adapters.ts): the client store and the payload adapter of every other model;
 * - accounts and tokens (provider-tokens.ts): findAccount and what an issued token carries;
 * - features (provider-features.ts): which of oidc-provider's features are on, and how;
 * - interaction routing (interaction-routing.ts): the prompts, the login UI's address, the grant of a silent request;
 * - agent wiring (provider-agents.ts): the agents feature of src/agents, as one entry;
 * - extensions (provider-extensions.ts, extensions/index.ts): what is applied to the built provider;
 * - grants (provider-grants.ts): the JWT profile and token exchange.
 */
export function createProvider(deps: ProviderDeps): Provider {
  const pairwise = new PairwiseSubjects(deps.hasher);
  const adapters = providerAdapters(deps);
  const device = deviceInputs(deps);
  const agents = providerAgentParts(deps);
  const configuration: Configuration = {
    ...providerConfiguration(deps, pairwise),
    adapter: adapters.adapterFor,
    ...accountsAndTokens(deps, adapters),
    features: providerFeatures(deps, device, agents),
    ...interactionRouting(deps, agents),
  };
  applyLibraryExtensions();
  const provider = new Provider(deps.issuer, configuration);
  const staticClientIds = new Set<string>(configuration.clients?.map((c: { client_id: string }) => c.client_id));
  extendProvider(provider, deps, { adapters, device, agents, staticClientIds });
  registerGrants(provider, deps, { jwtIds: adapters.jwtIds, pairwise });
  return provider;
}
