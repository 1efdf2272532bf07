import { Module } from '@nestjs/common';
import { LoginModule } from '../login/login.module.js';
import { UsersModule } from '../users/users.module.js';
import { DirectoryPasswords } from './directory-passwords.js';
import { DirectoriesController, DirectoryHostsController } from './api/directories.controller.js';
import { DirectoriesService } from './directories.service.js';
import { DirectoryGroupSync } from './directory-group-sync.js';
import { DirectoryKeeper } from './directory-keeper.js';
import { DirectoryPeople } from './directory-people.js';
import { DirectorySync } from './directory-sync.service.js';
import { DirectoryTests } from './directory-tests.service.js';

/**
 * LDAP and Active Directory (docs/directories.md): an organization's directories under
 * `/management/v1/orgs/{orgId}/directories`, the hosts they may reach (`/admin/v1/directory-hosts`), and the sync that
 * brings their people in. It owns `directories`, `directory_hosts`, `directory_users`, `directory_groups` and
 * `directory_syncs`.
 */
@Module({
  imports: [UsersModule, LoginModule],
  controllers: [DirectoriesController, DirectoryHostsController],
  providers: [DirectoriesService, DirectoryTests, DirectorySync, DirectoryPeople, DirectoryGroupSync, DirectoryPasswords, DirectoryKeeper],
})
export class DirectoriesModule {}
