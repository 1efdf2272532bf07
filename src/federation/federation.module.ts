import { Module } from '@nestjs/common';
import { LoginModule } from '../login/login.module.js';
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
import { IdJagIssuers } from './id-jag-issuers.js';
import { OrgDomainsController } from './api/org-domains.controller.js';
import { OrgDomainsService } from './domains/org-domains.service.js';
import { DomainVerification } from './domains/domain-verification.js';
import { AccountLinkTrips } from './sign-in/account-link-trips.js';
import { IdpInitiatedSignIns } from './sign-in/idp-initiated.js';
import { UpstreamLogout } from './saml/upstream-logout.js';
import { UpstreamSamlSessions } from './saml/upstream-saml-sessions.js';
import { FederatedSignInUi } from './sign-in/federated-sign-in.router.js';
import { FederatedSignInRoutes } from './sign-in/federated-sign-in.routes.js';
import { IdpTestSignInUi } from './sign-in/idp-test-sign-in.router.js';
import { UpstreamAnswersUi } from './sign-in/upstream-answers.router.js';
import { UpstreamChoices } from './sign-in/upstream-choices.js';
import { UpstreamTrips } from './sign-in/upstream-trips.js';

/**
 * Federation (docs/federation.md): an organization's upstream identity providers and the upstream identities linked
 * to its users. It owns `identity_providers`, `idp_domains`, `org_domains`, `user_identities`, `idp_round_trips`,
 * `saml_assertions_seen` and `upstream_saml_sessions`. Its sign-in steps (`sign-in/`) are doors of the login UI's SignInFlow.
 */
@Module({
  imports: [UsersModule, LoginModule],
  controllers: [IdpsController, OrgDomainsController, UserIdentitiesController],
  providers: [
    IdentityProvidersService,
    UserIdentitiesService,
    RoundTrips,
    UpstreamOidc,
    UpstreamSaml,
    FederatedAccounts,
    IdpTests,
    OrgDomainsService,
    DomainVerification,
    UpstreamTrips,
    UpstreamChoices,
    FederatedSignInUi,
    UpstreamAnswersUi,
    IdpTestSignInUi,
    FederatedSignInRoutes,
    AccountLinkTrips,
    IdpInitiatedSignIns,
    UpstreamSamlSessions,
    UpstreamLogout,
    IdJagIssuers,
  ],
  exports: [
    IdJagIssuers,
    IdentityProvidersService,
    UserIdentitiesService,
    RoundTrips,
    UpstreamOidc,
    UpstreamSaml,
    FederatedAccounts,
    FederatedSignInUi,
    FederatedSignInRoutes,
    AccountLinkTrips,
    IdpInitiatedSignIns,
  ],
})
export class FederationModule {}
