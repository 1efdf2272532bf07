import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import { EmptyDto } from '../dto/projects.dto.js';
import { SetPasswordDto } from '../dto/user-changes.dto.js';
import { InvitationDto, UserDto } from '../dto/user-reads.dto.js';
import { AccountLinksService } from '../../users/self-service/account-links.service.js';
import { userView } from './user-views.js';

/**
 * A user's state and password (docs/product-rules.md, "Domain"), through the same domain functions as
 * SCIM's `active` and `password`. Deactivating and a new password end the user's sessions, grants and
 * tokens; reactivating and unlocking revive none of them (SECURITY.md).
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId')
export class UserStateController {
  constructor(
    private readonly lifecycle: UserLifecycleService,
    private readonly directory: UserDirectory,
    private readonly links: AccountLinksService,
  ) {}

  @Post('invite')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail the user a link to set its first password (an invitation, valid 7 days); an earlier invitation stops working' })
  @ApiAcceptedResponse({ type: InvitationDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({ description: 'a machine user, a user without an e-mail address, or a deactivated user' })
  @ApiTooManyRequestsResponse({ description: 'a link of this kind went to the user less than a minute ago and is unused; `Retry-After` says when' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async invite(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<InvitationDto> {
    const { expiresAt } = await this.links.sendByAdministrator(caller.userId, orgId, userId, 'invitation');
    return { expiresAt: expiresAt.toISOString() };
  }

  @Post('password/reset')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail the user a link to choose a new password (valid 1 hour); the current password works until then' })
  @ApiAcceptedResponse({ type: InvitationDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({ description: 'a machine user, a user without an e-mail address, or a deactivated user' })
  @ApiTooManyRequestsResponse({ description: 'a link of this kind went to the user less than a minute ago and is unused; `Retry-After` says when' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async sendReset(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<InvitationDto> {
    const { expiresAt } = await this.links.sendByAdministrator(caller.userId, orgId, userId, 'password_reset');
    return { expiresAt: expiresAt.toISOString() };
  }

  @Post('email/verify')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail the user a link that verifies its e-mail address (valid 24 hours); an earlier link stops working' })
  @ApiAcceptedResponse({ type: InvitationDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({
    description: 'a machine user, a user without an e-mail address, an address already verified, or one another user of the organization holds verified',
  })
  @ApiTooManyRequestsResponse({ description: 'a link of this kind went to the user less than a minute ago and is unused; `Retry-After` says when' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async verifyEmail(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() _dto: EmptyDto,
  ): Promise<InvitationDto> {
    const { expiresAt } = await this.links.sendByAdministrator(caller.userId, orgId, userId, 'email_verification');
    return { expiresAt: expiresAt.toISOString() };
  }

  @Post('deactivate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate a user: it cannot sign in, and its sessions and tokens are revoked' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiConflictResponse({ description: 'the user is the last active IAM_OWNER' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async deactivate(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<UserDto> {
    return userView(await this.lifecycle.deactivate(caller.userId, orgId, userId));
  }

  @Post('reactivate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reactivate a deactivated user' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async reactivate(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<UserDto> {
    return userView(await this.lifecycle.reactivate(caller.userId, orgId, userId));
  }

  @Post('unlock')
  @HttpCode(200)
  @ApiOperation({ summary: 'Unlock a user locked by failed sign-in attempts' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async unlock(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<UserDto> {
    return userView(await this.lifecycle.unlock(caller.userId, orgId, userId));
  }

  @Put('password')
  @ApiOperation({ summary: "Set a human user's password; its sessions and tokens are revoked" })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async setPassword(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() dto: SetPasswordDto,
  ): Promise<UserDto> {
    await this.lifecycle.setPassword(caller.userId, orgId, userId, dto.password, { changeRequired: dto.changeRequired ?? false });
    return userView(await this.directory.get(orgId, userId));
  }
}
