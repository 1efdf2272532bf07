import { CLIENT_TOKENS } from '../common/auth/client-tokens.js';
import { OidcClientTokens } from './tokens/oidc-client-tokens.js';
import { Global, Module } from '@nestjs/common';
import { ACCESS_TOKEN_VERIFIER } from '../common/auth/principal-resolver.js';
import { DPOP_REPLAYS } from '../common/auth/dpop-replay.js';
import { CLIENT_REGISTRATIONS } from '../common/auth/client-registrations.js';
import { USER_TOKENS } from '../common/auth/user-tokens.js';
import { AccountModule } from '../account/account.module.js';
import { ACCOUNT_PROTOCOL } from '../account/account-protocol.js';
import { FederationModule } from '../federation/federation.module.js';
import { FederatedSignInUi } from '../federation/sign-in/federated-sign-in.router.js';
import { LoginModule } from '../login/login.module.js';
import { SIGN_IN_PROTOCOL } from '../login/sign-in-protocol.js';
import { CONSENT_PROTOCOL } from '../login/consent-protocol.js';
import { AgentConsentProtocol } from '../agents/consent/agent-consent-protocol.js';
import { UPSTREAM_SIGN_IN } from '../login/upstream-sign-in.js';
import { UsersModule } from '../users/users.module.js';
import { AccountFinder } from './account/account.finder.js';
import { HiddenClientSignIn } from './hidden-client/hidden-client-sign-in.js';
import { LoginUiRouter } from './interactions/login-ui.router.js';
import { OidcAccountProtocol } from './interactions/oidc-account-protocol.js';
import { OidcSignInProtocol } from './interactions/oidc-sign-in-protocol.js';
import { KeysController } from './keys/keys.controller.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { UpstreamAssertionKey } from './keys/upstream-assertion-key.js';
import { BackchannelLogoutSender } from './logout/backchannel-logout.sender.js';
import { OidcDispatch } from './provider/extensions/oidc-dispatch.middleware.js';
import { ProviderHolder } from './provider/provider.holder.js';
import { ProviderInputs } from './provider/provider-inputs.js';
import { ProviderUserServices } from './provider/provider-user-services.js';
import { ProviderKeyPoll } from './provider/provider-key-poll.js';
import { OidcPurgeSchedule } from './adapter/oidc-purge.schedule.js';
import { DpopReplayGuard } from './provider/dpop.js';
import { OidcAccessTokenVerifier } from './tokens/access-token.verifier.js';
import { OidcClientRegistrations } from './tokens/oidc-client-registrations.js';
import { OidcUserTokens } from './tokens/oidc-user-tokens.js';
import { IdJagServices } from '../agents/id-jag/id-jag.services.js';
import { AgentsModule } from '../agents/agents.module.js';
import { AgentWiring } from './agent-wiring.js';

/**
 * OpenID Connect provider and OAuth 2.0 server. Global only so that the users domain can receive
 * ACCESS_TOKEN_VERIFIER, DPOP_REPLAYS, USER_TOKENS and CLIENT_REGISTRATIONS, and the sign-in and the account page
 * SIGN_IN_PROTOCOL, CONSENT_PROTOCOL (the agents' consent step), UPSTREAM_SIGN_IN and ACCOUNT_PROTOCOL, without importing
 * this surface.
 */
@Global()
@Module({
  imports: [UsersModule, LoginModule, FederationModule, AccountModule, AgentsModule],
  controllers: [KeysController],
  providers: [
    SigningKeysService,
    UpstreamAssertionKey,
    AccountFinder,
    ProviderUserServices,
    IdJagServices,
    ProviderInputs,
    ProviderHolder,
    HiddenClientSignIn,
    ProviderKeyPoll,
    OidcPurgeSchedule,
    LoginUiRouter,
    OidcDispatch,
    BackchannelLogoutSender,
    AgentWiring,
    { provide: SIGN_IN_PROTOCOL, useClass: OidcSignInProtocol },
    { provide: CONSENT_PROTOCOL, useClass: AgentConsentProtocol },
    { provide: ACCOUNT_PROTOCOL, useClass: OidcAccountProtocol },
    { provide: UPSTREAM_SIGN_IN, useExisting: FederatedSignInUi },
    { provide: ACCESS_TOKEN_VERIFIER, useClass: OidcAccessTokenVerifier },
    { provide: DPOP_REPLAYS, useClass: DpopReplayGuard },
    { provide: USER_TOKENS, useClass: OidcUserTokens },
    { provide: CLIENT_TOKENS, useClass: OidcClientTokens },
    { provide: CLIENT_REGISTRATIONS, useClass: OidcClientRegistrations },
  ],
  exports: [
    ACCESS_TOKEN_VERIFIER,
    DPOP_REPLAYS,
    USER_TOKENS,
    CLIENT_TOKENS,
    CLIENT_REGISTRATIONS,
    SIGN_IN_PROTOCOL,
    CONSENT_PROTOCOL,
    ACCOUNT_PROTOCOL,
    UPSTREAM_SIGN_IN,
    SigningKeysService,
    OidcDispatch,
    ProviderHolder,
    AccountFinder,
    HiddenClientSignIn,
    OidcPurgeSchedule,
  ],
})
export class OidcModule {}
