import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { pageOf } from '../../common/http/validation/list-page.dto.js';
import type { ProjectGrantEntity } from '../../users/project-access/project-grant.entity.js';
import { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import {
  CreateProjectGrantDto,
  ListProjectGrantsQueryDto,
  ProjectGrantCreatedDto,
  ProjectGrantDto,
  ProjectGrantListDto,
  UpdateProjectGrantDto,
} from '../dto/project-access.dto.js';

/** Who may enter a project's applications, with which of its roles (docs/product-rules.md, "Application access"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects/:projectId/grants')
export class ProjectGrantsController {
  constructor(private readonly grants: ProjectGrantsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Grant a user or a group access to the project, with roles' })
  @ApiCreatedResponse({ type: ProjectGrantCreatedDto })
  @ApiBadRequestResponse({ description: 'not exactly one of userId and groupId, or a role the project does not have' })
  @ApiNotFoundResponse({ description: 'no such project, user or group in the organization' })
  @ApiConflictResponse({ description: 'the user or group has a grant in the project' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async create(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: CreateProjectGrantDto,
  ): Promise<ProjectGrantCreatedDto> {
    const grant = await this.grants.add(caller.userId, orgId, projectId, dto);
    return { grantId: grant.id };
  }

  @Get()
  @ApiOperation({ summary: "List the project's grants, oldest first" })
  @ApiOkResponse({ type: ProjectGrantListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Param('projectId') projectId: string, @Query() query: ListProjectGrantsQueryDto): Promise<ProjectGrantListDto> {
    const { items, total } = await this.grants.list(orgId, projectId, { userId: query.userId, groupId: query.groupId, query: query.query }, pageOf(query));
    return { grants: items.map(grantView), total };
  }

  @Patch(':grantId')
  @ApiOperation({ summary: "Replace a grant's roles" })
  @ApiOkResponse({ type: ProjectGrantDto })
  @ApiBadRequestResponse({ description: 'a role the project does not have' })
  @ApiNotFoundResponse({ description: 'no such project or grant' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async update(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('grantId') grantId: string,
    @Body() dto: UpdateProjectGrantDto,
  ): Promise<ProjectGrantDto> {
    return grantView(await this.grants.change(caller.userId, orgId, projectId, grantId, dto.roles));
  }

  @Delete(':grantId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a grant' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'no such project or grant' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('grantId') grantId: string,
  ): Promise<void> {
    await this.grants.remove(caller.userId, orgId, projectId, grantId);
  }
}

function grantView(grant: ProjectGrantEntity): ProjectGrantDto {
  return {
    grantId: grant.id,
    ...(grant.userId !== null ? { userId: grant.userId } : {}),
    ...(grant.groupId !== null ? { groupId: grant.groupId } : {}),
    roles: grant.roles,
  };
}
