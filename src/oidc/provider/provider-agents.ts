import type { OidcContext } from 'oidc-provider';
import { clientServing } from '../../agents/agent-organization.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import { agentConsentMissing } from '../../agents/consent/agent-consent-gate.js';
import { bindAtFirstCode, dynamicRegistrationFeatures } from '../../agents/registration/dynamic-registration.js';
import type { DynamicRegistrationDeps } from '../../agents/registration/dynamic-registration.js';
import type { IssuedCodeCheck } from './extensions/code-save.js';
import { setOAuthError } from './oauth-errors.js';
import type { ProviderDeps } from './provider-deps.js';

/**
 * The agents feature's part in the provider (src/agents; docs/agents.md), as one entry of createProvider's list:
 * the registration endpoints, the organization a client serves, the consent an agent client still needs and the
 * binding of an openly registered client at its first code. What the feature does lives in src/agents; this only wires it.
 */
export interface ProviderAgentParts {
  /** RFC 7591 and RFC 7592 for agents (docs/agents.md, "Dynamic registration"), gated per organization. */
  features: ReturnType<typeof dynamicRegistrationFeatures>;
  /** The client as the organization boundary sees it for this request's resource. */
  clientServing: (ctx: OidcContext) => Promise<BoundaryClient | undefined>;
  /** True while an agent client asks for what the person has not allowed (docs/agents.md, "Consent and connected agents"). */
  consentMissing: (ctx: OidcContext) => Promise<boolean>;
  /** An openly registered agent is bound at its first code (extensions/code-save.ts). */
  codeCheck: IssuedCodeCheck;
}

export function providerAgentParts(deps: ProviderDeps): ProviderAgentParts {
  const registration = registrationDeps(deps);
  return {
    features: dynamicRegistrationFeatures(),
    clientServing: (ctx) => clientServing(deps.dataSource, ctx.oidc.client, ctx.oidc.params?.resource),
    consentMissing: (ctx) => agentConsentMissing(deps.uow.manager, ctx),
    codeCheck: (client, code) => bindAtFirstCode(registration, client, code),
  };
}

/** What dynamic registration (src/agents/registration) needs of the provider's inputs. */
export function registrationDeps(deps: ProviderDeps): DynamicRegistrationDeps {
  return {
    dataSource: deps.dataSource,
    uow: deps.uow,
    events: deps.events,
    hasher: deps.hasher,
    limiter: deps.registrationLimiter,
    bounds: deps.registrationBounds,
    oauthError: setOAuthError,
  };
}
