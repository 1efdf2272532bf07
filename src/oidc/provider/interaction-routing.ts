import type { Configuration, OidcContext } from 'oidc-provider';
import { requestedAudience } from '../account/resource-audience.js';
import { LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import { keepOfflineAccessOfSilentRequest } from './extensions/request-rules.js';
import { buildInteractionPolicy } from './interaction.policy.js';
import type { ProviderAgentParts } from './provider-agents.js';
import type { ProviderDeps } from './provider-deps.js';

/**
 * The interaction routing part: which prompts a request meets (interaction.policy.ts), where the login UI serves them,
 * and which grant a request that needs no prompt is given.
 */
export function interactionRouting(deps: ProviderDeps, agents: ProviderAgentParts): Configuration {
  return {
    interactions: {
      policy: buildInteractionPolicy(deps.loginPolicy, agents.clientServing, deps.entry, (ctx: OidcContext) =>
        requestedAudience(deps.dataSource, ctx.oidc.client, ctx.oidc.params),
      ),
      url: (_ctx: OidcContext, interaction: { uid: string }) => `${LOGIN_UI_PREFIX}/${interaction.uid}`,
    },
    // The one consent rule (the login UI answers every prompt and grants nothing): what an administrator's client asks
    // for (within its registration) is granted on the user's behalf (docs/product-rules.md, "OpenID Connect and OAuth");
    // an agent client gets it only once the person allowed it (docs/agents.md, "Consent and connected agents"), else
    // the consent prompt follows.
    loadExistingGrant: async (ctx: OidcContext) => ((await agents.consentMissing(ctx)) ? undefined : grantRequested(ctx)),
  };
}

async function grantRequested(ctx: OidcContext) {
  const { oidc } = ctx;
  const grantId = oidc.session.grantIdFor(oidc.client.clientId);
  const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  const grant = existing ?? new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  keepOfflineAccessOfSilentRequest(ctx);
  const scope = [...oidc.requestParamScopes].join(' ');
  const before = existing && grantScopes(existing);
  grant.addOIDCScope(scope);
  for (const resource of Object.keys(oidc.resourceServers ?? {})) grant.addResourceScope(resource, scope);
  // The session's grant already holds these scopes after the first request: a write that changes nothing is skipped.
  if (!existing || grantScopes(grant) !== before) await grant.save();
  return grant;
}

/** What a grant allows (OIDC scope and claims, resource scopes), comparable as a string. */
function grantScopes(grant: { openid?: unknown; resources?: unknown }): string {
  return JSON.stringify([grant.openid, grant.resources]);
}
