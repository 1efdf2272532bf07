import { Module } from '@nestjs/common';
import { BearerStrategy } from '../common/auth/bearer.strategy.js';
import { PRINCIPAL_RESOLVER } from '../common/auth/principal-resolver.js';
import { UserAccess } from './acting/user-access.service.js';
import { PasswordlessUsers } from './passwordless-users.js';
import { BootstrapService } from './bootstrap.service.js';
import { CredentialsService } from './credentials.service.js';
import { FeaturesService } from './features.service.js';
import { FactorsService } from './factors/factors.service.js';
import { GroupsService } from './groups/groups.service.js';
import { LoginNamesService } from './login-names.service.js';
import { MembershipsService } from './memberships.service.js';
import { OrganizationsService } from './organizations.service.js';
import { PasswordChecks } from './password-checks.service.js';
import { PasswordHistory } from './password-history/password-history.service.js';
import { LoginPolicyService } from './login-policy.service.js';
import { DomainPrincipalResolver } from './principal.resolver.js';
import { ProjectsService } from './projects.service.js';
import { UserDirectory } from './user-directory.service.js';
import { SyncedFields } from './synced-fields.js';
import { PasswordKeepers } from './password-keepers.js';
import { UserEditService } from './user-edit.service.js';
import { UserLifecycleService } from './user-lifecycle.service.js';
import { UserProfileService } from './user-profile.service.js';
import { UsersService } from './users.service.js';
import { UserImportWriter } from './user-import.writer.js';
import { MovingInWriter } from './moving-in/moving-in.writer.js';
import { UserCodes } from './codes/user-codes.js';
import { AccountLinksService } from './self-service/account-links.service.js';
import { UserSessionsService } from './self-service/user-sessions.service.js';
import { OwnAccountService } from './self-service/own-account.service.js';
import { MailModule } from '../mail/mail.module.js';
import { SettingsModule } from '../settings/settings.module.js';

import { ApplicationCredentialsService } from './resources/application-credentials.service.js';
import { ApplicationEditsService } from './resources/application-edits.service.js';
import { OrganizationRemovalService } from './resources/organization-removal.service.js';
import { ProjectEditsService } from './resources/project-edits.service.js';
import { ApplicationAccess } from './project-access/application-access.service.js';
import { ProjectGrantsService } from './project-access/project-grants.service.js';
import { GrantLoss } from './project-access/grant-loss.js';
import { ProjectRolesService } from './project-access/project-roles.service.js';

const SERVICES = [
  PasswordlessUsers,
  UserAccess,
  SyncedFields,
  PasswordKeepers,
  OrganizationsService,
  UsersService,
  UserLifecycleService,
  UserEditService,
  UserDirectory,
  CredentialsService,
  MembershipsService,
  ProjectsService,
  FeaturesService,
  BootstrapService,
  LoginNamesService,
  UserProfileService,
  UserImportWriter,
  MovingInWriter,
  PasswordChecks,
  PasswordHistory,
  LoginPolicyService,
  GroupsService,
  FactorsService,
  ProjectEditsService,
  ApplicationEditsService,
  ApplicationCredentialsService,
  OrganizationRemovalService,
  UserCodes,
  AccountLinksService,
  UserSessionsService,
  OwnAccountService,
  ProjectRolesService,
  ProjectGrantsService,
  GrantLoss,
  ApplicationAccess,
];

/** The shared domain: organizations, users, memberships, groups, credentials, projects and applications. */
@Module({
  // Password policy, lockout and registration of new organizations are the instance's settings, read on use.
  imports: [MailModule, SettingsModule],
  // The bearer strategy lives in common but is registered here, where the resolver it needs is provided.
  providers: [...SERVICES, { provide: PRINCIPAL_RESOLVER, useClass: DomainPrincipalResolver }, BearerStrategy],
  exports: [...SERVICES, PRINCIPAL_RESOLVER],
})
export class UsersModule {}
