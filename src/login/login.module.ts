import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { AccountLinksUi } from './account-links.router.js';
import { PasskeyLinksUi } from './passkey-links.router.js';
import { ApplicationEntry } from './application-entry.js';
import { KnownAccounts } from './known-accounts.js';
import { LoginEntryUi } from './login-entry.router.js';
import { ConsentUi } from './consent.router.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPage } from './login-page.js';
import { LoginPolicies } from './login-policies.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUiRoutes } from './login-ui.routes.js';
import { BrandPreviewPage } from './brand-preview.page.js';
import { LoginUsers } from './login-users.js';
import { OwedActions } from './owed-actions.js';
import { OwedActionsUi } from './owed-actions.router.js';
import { PasswordLoginUi } from './password-login.router.js';
import { PasswordLoginService } from './password-login.service.js';
import { ExternalPasswords } from './external-passwords.js';
import { RegistrationGate } from './registration-gate.js';
import { RegistrationUi } from './registration.router.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { SecondFactorUi } from './second-factor.router.js';
import { SignInAttempts } from './sign-in-attempts.js';
import { SecondStepChoice } from './second-step-choice.js';
import { SignInFlow } from './sign-in-flow.js';

/**
 * The sign-in, protocol-neutral (docs/architecture.md, "The parts"). It needs SIGN_IN_PROTOCOL (the protocol that
 * asked for the sign-in) and UPSTREAM_SIGN_IN (the upstream doors of the login page), which src/oidc provides from
 * its global module: the sign-in imports neither.
 */
@Module({
  imports: [UsersModule],
  providers: [
    ApplicationEntry,
    LoginInteractions,
    LoginPolicies,
    LoginRateLimiter,
    LoginUsers,
    KnownAccounts,
    RegistrationGate,
    PasswordLoginService,
    ExternalPasswords,
    SecondFactorPages,
    SignInAttempts,
    OwedActions,
    SignInFlow,
    SecondStepChoice,
    LoginPage,
    LoginEntryUi,
    ConsentUi,
    PasswordLoginUi,
    RegistrationUi,
    SecondFactorUi,
    OwedActionsUi,
    AccountLinksUi,
    PasskeyLinksUi,
    LoginUiRoutes,
    BrandPreviewPage,
  ],
  exports: [
    ApplicationEntry,
    LoginInteractions,
    LoginPolicies,
    LoginRateLimiter,
    LoginUsers,
    KnownAccounts,
    PasswordLoginService,
    ExternalPasswords,
    SecondFactorPages,
    SignInFlow,
    LoginUiRoutes,
    BrandPreviewPage,
  ],
})
export class LoginModule {}
