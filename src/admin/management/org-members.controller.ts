import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { MembershipsService } from '../../users/memberships.service.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import { namedMembers } from '../member-names.js';
import { ListSearchQueryDto, pageOf } from '../../common/http/validation/list-page.dto.js';
import { MemberDto, MemberListDto, SetOrgMemberDto } from '../dto/members.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/members')
export class OrgMembersController {
  constructor(
    private readonly memberships: MembershipsService,
    private readonly directory: UserDirectory,
  ) {}

  @Get()
  @ApiOperation({ summary: "List the organization's members and their roles on it, with their names; `query` as the user search matches" })
  @ApiOkResponse({ type: MemberListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<MemberListDto> {
    const { items, total } = await this.memberships.listOrgMembers(orgId, pageOf(query), query.query);
    return { members: await namedMembers(this.directory, items), total };
  }

  @Delete(':userId')
  @HttpCode(204)
  @ApiOperation({ summary: "Take a user's roles on the organization" })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string): Promise<void> {
    await this.memberships.removeOrgMember(caller.userId, orgId, userId);
  }

  @Put(':userId')
  @ApiOperation({ summary: "Set a user's organization roles" })
  @ApiOkResponse({ type: MemberDto })
  @ApiNotFoundResponse({ description: 'no such user' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async setMember(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() dto: SetOrgMemberDto,
  ): Promise<MemberDto> {
    await this.memberships.setOrgMember(caller.userId, orgId, userId, dto.roles);
    return { userId, roles: [...new Set(dto.roles)] };
  }
}
