import { Module } from '@nestjs/common';
import { FederationModule } from '../federation/federation.module.js';
import { LoginModule } from '../login/login.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccountLimits } from './account-limits.js';
import { AccountPageRenderer } from './account-page.renderer.js';
import { AccountPageUi } from './account-page.router.js';
import { AccountSessions } from './account-session.js';
import { AccountVisits } from './account-visits.js';
import { FactorChanges } from './factor-changes.js';
import { IdentityChanges } from './identity-changes.js';
import { MyAppsPage } from './my-apps.page.js';
import { ProfileChanges } from './profile-changes.js';
import { SessionChanges } from './session-changes.js';
import { AgentChanges } from './agent-changes.js';

/**
 * The account page (docs/account.md), in the login UI's session. ACCOUNT_PROTOCOL comes from the protocol that keeps
 * that session (src/oidc, a global module).
 */
@Module({
  imports: [UsersModule, LoginModule, FederationModule],
  providers: [
    AccountSessions,
    AccountVisits,
    AccountPageRenderer,
    AccountLimits,
    ProfileChanges,
    FactorChanges,
    SessionChanges,
    AgentChanges,
    IdentityChanges,
    MyAppsPage,
    AccountPageUi,
  ],
  exports: [AccountPageUi, MyAppsPage],
})
export class AccountModule {}
