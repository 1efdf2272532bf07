import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { EventSearchService } from './events/event-search.service.js';
import { EventsController } from './events/events.controller.js';
import { InstanceController } from './instance.controller.js';
import { GroupsController } from './management/groups.controller.js';
import { LoginPolicyController } from './management/login-policy.controller.js';
import { OrgMembersController } from './management/org-members.controller.js';
import { ApplicationsController } from './management/applications.controller.js';
import { ProjectEditsController } from './management/project-edits.controller.js';
import { ProjectGrantsController } from './management/project-grants.controller.js';
import { ProjectRolesController } from './management/project-roles.controller.js';
import { UserGrantsController } from './management/user-grants.controller.js';
import { ProjectsController } from './management/projects.controller.js';
import { UserCredentialsController } from './management/user-credentials.controller.js';
import { UserFactorsController } from './management/user-factors.controller.js';
import { UserRecordsController } from './management/user-records.controller.js';
import { UserStateController } from './management/user-state.controller.js';
import { UserSessionsController } from './management/user-sessions.controller.js';
import { UsersController } from './management/users.controller.js';
import { MeController } from './me.controller.js';
import { OrgsController } from './orgs.controller.js';
import { ImportController } from './import/import.controller.js';
import { ImportService } from './import/import.service.js';

/** Instance administration (`/admin/v1`) and the management API (`/management/v1`) of docs/product-rules.md, "API". */
@Module({
  imports: [UsersModule],
  controllers: [
    MeController,
    OrgsController,
    InstanceController,
    EventsController,
    ProjectsController,
    UsersController,
    OrgMembersController,
    LoginPolicyController,
    GroupsController,
    UserFactorsController,
    ImportController,
    ProjectEditsController,
    ProjectRolesController,
    ProjectGrantsController,
    UserGrantsController,
    ApplicationsController,
    UserRecordsController,
    UserStateController,
    UserCredentialsController,
    UserSessionsController,
  ],
  providers: [EventSearchService, ImportService],
  // Webhooks deliver events as event search returns them.
  exports: [EventSearchService],
})
export class AdminModule {}
