import { Module } from '@nestjs/common';
import { PRINCIPAL_RESOLVER } from '../common/auth/principal-resolver.js';
import { UserAccess } from './acting/user-access.service.js';
import { BootstrapService } from './bootstrap.service.js';
import { CredentialsService } from './credentials.service.js';
import { FeaturesService } from './features.service.js';
import { FactorsService } from './factors/factors.service.js';
import { GroupsService } from './groups/groups.service.js';
import { LoginNamesService } from './login-names.service.js';
import { MembershipsService } from './memberships.service.js';
import { OrganizationsService } from './organizations.service.js';
import { PasswordChecks } from './password-checks.service.js';
import { LoginPolicyService } from './login-policy.service.js';
import { DomainPrincipalResolver } from './principal.resolver.js';
import { ProjectsService } from './projects.service.js';
import { UserLifecycleService } from './user-lifecycle.service.js';
import { UserProfileService } from './user-profile.service.js';
import { UsersService } from './users.service.js';
import { UserImportWriter } from './user-import.writer.js';

const SERVICES = [
  UserAccess,
  OrganizationsService,
  UsersService,
  UserLifecycleService,
  CredentialsService,
  MembershipsService,
  ProjectsService,
  FeaturesService,
  BootstrapService,
  LoginNamesService,
  UserProfileService,
  UserImportWriter,
  PasswordChecks,
  LoginPolicyService,
  GroupsService,
  FactorsService,
];

/** The shared domain: organizations, users, memberships, groups, credentials, projects and applications. */
@Module({
  // The bearer strategy lives in common but is registered here, where the resolver it needs is provided.
  providers: [...SERVICES, { provide: PRINCIPAL_RESOLVER, useClass: DomainPrincipalResolver }],
  exports: [...SERVICES, PRINCIPAL_RESOLVER],
})
export class UsersModule {}
