import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { GroupsService } from '../../users/groups/groups.service.js';
import { CreateGroupDto, GroupCreatedDto, GroupListDto, GroupMemberDto, GroupMemberListDto } from '../dto/groups.dto.js';
import { ListSearchQueryDto, pageOf, pageOfList } from '../../common/http/validation/list-page.dto.js';
import { textContains } from '../../common/database/name-search.js';

/** An organization's groups (docs/product-rules.md, "Groups"); membership writes are idempotent both ways. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/groups')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a group' })
  @ApiCreatedResponse({ type: GroupCreatedDto })
  @ApiConflictResponse({ description: 'a group with this name exists in the organization (compared case-insensitively)' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateGroupDto): Promise<GroupCreatedDto> {
    const group = await this.groups.create(caller.userId, orgId, { displayName: dto.displayName, externalId: dto.externalId });
    return { id: group.id };
  }

  @Get()
  @ApiOperation({ summary: 'List the groups' })
  @ApiOkResponse({ type: GroupListDto })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<GroupListDto> {
    const groups = await this.groups.list(orgId);
    const { items, total } = pageOfList(query.query ? groups.filter((group) => textContains(group.displayName, query.query!)) : groups, query);
    return { groups: items, total };
  }

  @Delete(':groupId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a group' })
  @ApiNoContentResponse({ description: 'the group is deleted' })
  @ApiNotFoundResponse({ description: 'no such group in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('groupId') groupId: string): Promise<void> {
    await this.groups.remove(caller.userId, orgId, groupId);
  }

  @Get(':groupId/members')
  @ApiOperation({
    summary: "List a group's members",
    description: 'By user name, a page at a time; `query` keeps those whose names or e-mail contain it.',
  })
  @ApiOkResponse({ type: GroupMemberListDto })
  @ApiNotFoundResponse({ description: 'no such group in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async members(@Param('orgId') orgId: string, @Param('groupId') groupId: string, @Query() query: ListSearchQueryDto): Promise<GroupMemberListDto> {
    const { total, members } = await this.groups.members(orgId, groupId, query.query, pageOf(query));
    return { total, members: members.map(({ displayName, ...member }) => ({ ...member, ...(displayName ? { displayName } : {}) })) };
  }

  @Put(':groupId/members/:userId')
  @ApiOperation({ summary: 'Add a user to a group', description: 'Idempotent: adding a member again changes nothing.' })
  @ApiOkResponse({ type: GroupMemberDto })
  @ApiNotFoundResponse({ description: 'no such group or user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async addMember(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
  ): Promise<GroupMemberDto> {
    await this.groups.addMember(caller.userId, orgId, groupId, userId);
    return { groupId, userId };
  }

  @Delete(':groupId/members/:userId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a user from a group', description: 'Idempotent: removing a non-member changes nothing.' })
  @ApiNoContentResponse({ description: 'the user is not a member (any more)' })
  @ApiNotFoundResponse({ description: 'no such group or user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async removeMember(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
  ): Promise<void> {
    await this.groups.removeMember(caller.userId, orgId, groupId, userId);
  }
}
