import { Global, Module } from '@nestjs/common';
import { ACCESS_TOKEN_VERIFIER } from '../common/auth/principal-resolver.js';
import { DPOP_REPLAYS } from '../common/auth/dpop-replay.js';
import { CLIENT_REGISTRATIONS } from '../common/auth/client-registrations.js';
import { USER_TOKENS } from '../common/auth/user-tokens.js';
import { FederationModule } from '../federation/federation.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccountFinder } from './account/account.finder.js';
import { KeysController } from './keys/keys.controller.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { LoginUiRouter } from '../login/login-ui.router.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { SecondFactorUi } from '../login/second-factor.router.js';
import { SecondFactorPages } from '../login/second-factor.pages.js';
import { FederatedLoginUi } from '../federation/sign-in/federated-login.js';
import { AccountLinksUi } from '../login/account-links.router.js';
import { AccountPageUi } from '../account/account-page.router.js';
import { AccountActions } from '../login/owed-actions.js';
import { LoginPolicies } from '../login/login-policies.js';
import { LoginUsers } from '../login/login-users.js';
import { RegistrationGate } from '../login/registration-gate.js';
import { AccountSessions } from '../account/account-session.js';
import { LoginRateLimiter } from '../login/login-rate-limiter.js';
import { BackchannelLogoutSender } from './logout/backchannel-logout.sender.js';
import { PasswordLoginService } from '../login/password-login.service.js';
import { OidcDispatch } from './provider/extensions/oidc-dispatch.middleware.js';
import { ProviderHolder } from './provider/provider.holder.js';
import { DpopReplayGuard } from './provider/dpop.js';
import { OidcAccessTokenVerifier } from './tokens/access-token.verifier.js';
import { OidcClientRegistrations } from './tokens/oidc-client-registrations.js';
import { OidcUserTokens } from './tokens/oidc-user-tokens.js';

/**
 * OpenID Connect provider and OAuth 2.0 server. Global only so that the users domain can receive
 * ACCESS_TOKEN_VERIFIER, DPOP_REPLAYS, USER_TOKENS and CLIENT_REGISTRATIONS without importing this surface.
 */
@Global()
@Module({
  imports: [UsersModule, FederationModule],
  controllers: [KeysController],
  providers: [
    SigningKeysService,
    AccountFinder,
    ProviderHolder,
    PasswordLoginService,
    LoginUiRouter,
    LoginInteractions,
    LoginPolicies,
    LoginUsers,
    RegistrationGate,
    AccountSessions,
    LoginRateLimiter,
    SecondFactorUi,
    SecondFactorPages,
    FederatedLoginUi,
    AccountLinksUi,
    AccountActions,
    AccountPageUi,
    OidcDispatch,
    BackchannelLogoutSender,
    { provide: ACCESS_TOKEN_VERIFIER, useClass: OidcAccessTokenVerifier },
    { provide: DPOP_REPLAYS, useClass: DpopReplayGuard },
    { provide: USER_TOKENS, useClass: OidcUserTokens },
    { provide: CLIENT_REGISTRATIONS, useClass: OidcClientRegistrations },
  ],
  exports: [LoginUsers, ACCESS_TOKEN_VERIFIER, DPOP_REPLAYS, USER_TOKENS, CLIENT_REGISTRATIONS, SigningKeysService, OidcDispatch, ProviderHolder, AccountFinder],
})
export class OidcModule {}
