import type { Configuration, OidcContext } from 'oidc-provider';
import { findAccountWithinOrganization } from '../account/organization-boundary.js';
import { refuseRefreshWithoutSecondFactor } from '../account/refresh-second-factor.js';
import { actOf, impersonationHolds } from '../grants/impersonation.js';
import { tokenExtras } from '../grants/token-exchange.grant.js';
import { audienceOf } from '../tokens/audience.js';
import { jwtPersistingCustomizer } from '../tokens/jwt-access-tokens.js';
import type { ProviderAdapters } from './provider-adapters.js';
import type { ProviderDeps } from './provider-deps.js';

/** The accounts and tokens part: whose account a token speaks for, and what an issued token carries. */
export function accountsAndTokens(deps: ProviderDeps, adapters: ProviderAdapters): Configuration {
  const { dataSource } = deps;
  return {
    findAccount: async (ctx: OidcContext, sub: string, token?: unknown) => {
      const account = await findAccountWithinOrganization(deps.accounts, dataSource, deps.entry, ctx, sub, token);
      if (account) await refuseRefreshWithoutSecondFactor(account, token, deps.loginPolicy);
      // An impersonation ends with its actor's right to it (impersonation.ts): userinfo refuses the token.
      const act = actOf(token);
      if (account && act && !(await impersonationHolds(deps.access, deps.uow.manager, act, sub))) return undefined;
      return account;
    },
    // RFC 9068 §2.1: JWT access tokens are typed at+jwt (oidc-provider sets it) and persisted so they
    // stay introspectable and revocable like opaque ones (docs/product-rules.md, "OpenID Connect and OAuth").
    extraTokenClaims: (ctx: OidcContext) => tokenExtras(ctx),
    formats: {
      customizers: {
        jwt: jwtPersistingCustomizer(
          adapters.adapterFor,
          (clientId, scope, userId) => audienceOf(dataSource, clientId, scope, userId),
          (userId, clientId, scope, resource) => deps.accounts.rolesOf(userId, clientId, scope, resource),
        ),
      },
    },
  };
}
