import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { IdpsController } from './api/idps.controller.js';
import { UserIdentitiesController } from './api/user-identities.controller.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { UserIdentitiesService } from './user-identities.service.js';
import { FederatedAccounts } from './federated-accounts.service.js';
import { RoundTrips } from './round-trips.js';
import { UpstreamOidc } from './upstream-oidc.js';
import { UpstreamSaml } from './saml/upstream-saml.js';
import { IdpTests } from './idp-tests.service.js';
import { OrgDomainsController } from './api/org-domains.controller.js';
import { OrgDomainsService } from './domains/org-domains.service.js';
import { DomainVerification } from './domains/domain-verification.js';

/**
 * Federation (docs/federation.md): an organization's upstream identity providers and the upstream
 * identities linked to its users. It owns `identity_providers`, `idp_domains`, `org_domains`, `user_identities`, `idp_round_trips` and `saml_assertions_seen`; the login UI
 * (src/oidc/login/federated-login.ts) drives the sign-in through it.
 */
@Module({
  imports: [UsersModule],
  controllers: [IdpsController, OrgDomainsController, UserIdentitiesController],
  providers: [IdentityProvidersService, UserIdentitiesService, RoundTrips, UpstreamOidc, UpstreamSaml, FederatedAccounts, IdpTests, OrgDomainsService, DomainVerification],
  exports: [IdentityProvidersService, UserIdentitiesService, RoundTrips, UpstreamOidc, UpstreamSaml, FederatedAccounts],
})
export class FederationModule {}
