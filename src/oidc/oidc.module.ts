import { Global, Module } from '@nestjs/common';
import { ACCESS_TOKEN_VERIFIER } from '../common/auth/principal-resolver.js';
import { UsersModule } from '../users/users.module.js';
import { AccountFinder } from './account/account.finder.js';
import { KeysController } from './keys/keys.controller.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { LoginUiRouter } from './login/login-ui.router.js';
import { PasswordLoginService } from './login/password-login.service.js';
import { OidcDispatch } from './provider/oidc-dispatch.middleware.js';
import { ProviderHolder } from './provider/provider.holder.js';
import { OidcAccessTokenVerifier } from './tokens/access-token.verifier.js';

/**
 * OpenID Connect provider and OAuth 2.0 server (spec §B, DESIGN §5). Global only so that the users
 * domain's principal resolver can receive ACCESS_TOKEN_VERIFIER without importing this surface.
 */
@Global()
@Module({
  imports: [UsersModule],
  controllers: [KeysController],
  providers: [
    SigningKeysService,
    AccountFinder,
    ProviderHolder,
    PasswordLoginService,
    LoginUiRouter,
    OidcDispatch,
    { provide: ACCESS_TOKEN_VERIFIER, useClass: OidcAccessTokenVerifier },
  ],
  exports: [ACCESS_TOKEN_VERIFIER, SigningKeysService, OidcDispatch],
})
export class OidcModule {}
