import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import { UserEditService } from '../../users/user-edit.service.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import { ChangeUserDto } from '../dto/user-changes.dto.js';
import { pageOf } from '../../common/http/validation/list-page.dto.js';
import { ListUsersQueryDto, UserDto, UserListDto } from '../dto/user-reads.dto.js';
import { userListItem, userView } from './user-views.js';

/**
 * Reading, changing and deleting an organization's users. Reads need only the route's role; a change or
 * removal also goes through the acting rule (SECURITY.md, "Who may act on whom"), in the domain.
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users')
export class UserRecordsController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly edits: UserEditService,
    private readonly lifecycle: UserLifecycleService,
  ) {}

  @Get()
  @ApiOperation({ summary: "List and search the organization's users, ordered by user name" })
  @ApiOkResponse({ type: UserListDto })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListUsersQueryDto): Promise<UserListDto> {
    const { rows, total } = await this.directory.list(orgId, { query: query.query, ...pageOf(query) });
    return { users: rows.map(userListItem), total };
  }

  @Get(':userId')
  @ApiOperation({ summary: 'Read a user' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async get(@Param('orgId') orgId: string, @Param('userId') userId: string): Promise<UserDto> {
    return userView(await this.directory.get(orgId, userId));
  }

  @Patch(':userId')
  @ApiOperation({ summary: 'Change fields of a user (any field of its creation)' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({
    description:
      'the user name is taken in the organization, `isEmailVerified` is true for an address another user of the organization holds verified, or a field its directory keeps would change',
  })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async change(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() dto: ChangeUserDto): Promise<UserDto> {
    const { profile, email, phone, ...rest } = dto;
    const changes = {
      ...rest,
      ...(profile ? { profile: { ...profile } } : {}),
      ...(email ? { email: { email: email.email, isEmailVerified: email.isEmailVerified } } : {}),
      ...(phone !== undefined ? { phone: phone && { phone: phone.phone, isPhoneVerified: phone.isPhoneVerified } } : {}),
    };
    return userView(await this.edits.change(caller.userId, orgId, userId, changes));
  }

  @Delete(':userId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user with its credentials, sessions and tokens; its id stays reserved' })
  @ApiNoContentResponse({ description: 'the user is deleted' })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({ description: 'the user is the last active IAM_OWNER' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string): Promise<void> {
    await this.lifecycle.remove(caller.userId, orgId, userId);
  }
}
