import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { Role } from '../common/auth/roles.js';
import { FeaturesService } from '../users/features.service.js';
import { MembershipsService } from '../users/memberships.service.js';
import { UserDirectory } from '../users/user-directory.service.js';
import { namedMembers } from './member-names.js';
import { FeaturesDto, SetFeaturesDto } from './dto/features.dto.js';
import { ListSearchQueryDto, pageOf } from '../common/http/validation/list-page.dto.js';
import { MemberDto, MemberListDto, SetInstanceMemberDto } from './dto/members.dto.js';

@ApiTags('admin')
@Controller('admin/v1')
export class InstanceController {
  constructor(
    private readonly memberships: MembershipsService,
    private readonly features: FeaturesService,
    private readonly directory: UserDirectory,
  ) {}

  @Put('members/:userId')
  @ApiOperation({ summary: "Set a user's instance roles" })
  @ApiOkResponse({ type: MemberDto })
  @ApiNotFoundResponse({ description: 'no such user' })
  @ApiConflictResponse({ description: 'the change would leave no active IAM_OWNER' })
  @Authenticated({ role: Role.IamOwner })
  async setMember(@Caller() caller: Principal, @Param('userId') userId: string, @Body() dto: SetInstanceMemberDto): Promise<MemberDto> {
    await this.memberships.setInstanceMember(caller.userId, userId, dto.roles);
    return { userId, roles: [...new Set(dto.roles)] };
  }

  @Get('members')
  @ApiOperation({ summary: 'List the instance members and their roles, with their names; `query` as the user search matches' })
  @ApiOkResponse({ type: MemberListDto })
  @Authenticated({ role: Role.IamOwner })
  async listMembers(@Query() query: ListSearchQueryDto): Promise<MemberListDto> {
    const { items, total } = await this.memberships.listInstanceMembers(pageOf(query), query.query);
    return { members: await namedMembers(this.directory, items), total };
  }

  @Delete('members/:userId')
  @HttpCode(204)
  @ApiOperation({ summary: "Take a user's instance roles (never from the last active IAM_OWNER)" })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.IamOwner })
  async removeMember(@Caller() caller: Principal, @Param('userId') userId: string): Promise<void> {
    await this.memberships.removeInstanceMember(caller.userId, userId);
  }

  @Get('features')
  @ApiOperation({ summary: 'Read the instance feature flags' })
  @ApiOkResponse({ type: FeaturesDto })
  @Authenticated({ role: Role.IamOwner })
  getFeatures(): Promise<FeaturesDto> {
    return this.features.get();
  }

  @Put('features')
  @ApiOperation({ summary: 'Set instance feature flags', description: 'A flag not sent keeps its value.' })
  @ApiOkResponse({ type: FeaturesDto })
  @Authenticated({ role: Role.IamOwner })
  setFeatures(@Caller() caller: Principal, @Body() dto: SetFeaturesDto): Promise<FeaturesDto> {
    return this.features.set(caller.userId, dto);
  }
}
