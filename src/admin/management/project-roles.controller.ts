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
import { ListSearchQueryDto, pageOf } from '../../common/http/validation/list-page.dto.js';
import type { ProjectRoleEntity } from '../../users/project-access/project-role.entity.js';
import { ProjectRolesService } from '../../users/project-access/project-roles.service.js';
import { CreateProjectRoleDto, ProjectRoleDto, ProjectRoleListDto, UpdateProjectRoleDto } from '../dto/project-access.dto.js';

/** A project's roles, which its applications learn (docs/product-rules.md, "Application access"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects/:projectId/roles')
export class ProjectRolesController {
  constructor(private readonly roles: ProjectRolesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a role to a project' })
  @ApiCreatedResponse({ type: ProjectRoleDto })
  @ApiBadRequestResponse({ description: 'key outside ^[A-Za-z0-9_.:-]{1,100}$' })
  @ApiConflictResponse({ description: 'the project has a role with this key' })
  @ApiNotFoundResponse({ description: 'no such project in the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async create(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: CreateProjectRoleDto,
  ): Promise<ProjectRoleDto> {
    return roleView(await this.roles.add(caller.userId, orgId, projectId, dto));
  }

  @Get()
  @ApiOperation({ summary: "List a project's roles, by key; `?query=` keeps those whose key or display name contains it" })
  @ApiOkResponse({ type: ProjectRoleListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Param('projectId') projectId: string, @Query() query: ListSearchQueryDto): Promise<ProjectRoleListDto> {
    const { items, total } = await this.roles.list(orgId, projectId, pageOf(query), query.query);
    return { roles: items.map(roleView), total };
  }

  @Patch(':key')
  @ApiOperation({ summary: "Change a role's display name or description" })
  @ApiOkResponse({ type: ProjectRoleDto })
  @ApiNotFoundResponse({ description: 'no such project or role' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async update(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('key') key: string,
    @Body() dto: UpdateProjectRoleDto,
  ): Promise<ProjectRoleDto> {
    return roleView(await this.roles.change(caller.userId, orgId, projectId, key, dto));
  }

  @Delete(':key')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a role', description: 'The role is taken out of every grant of the project; the grants stay.' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'no such project or role' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('projectId') projectId: string, @Param('key') key: string): Promise<void> {
    await this.roles.remove(caller.userId, orgId, projectId, key);
  }
}

function roleView(role: ProjectRoleEntity): ProjectRoleDto {
  return {
    key: role.key,
    ...(role.displayName !== null ? { displayName: role.displayName } : {}),
    ...(role.description !== null ? { description: role.description } : {}),
  };
}
