import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ProjectEditsService } from '../../users/resources/project-edits.service.js';
import { ProjectDto, ProjectListDto, UpdateProjectDto } from '../dto/applications.dto.js';
import { ListSearchQueryDto, pageOf } from '../../common/http/validation/list-page.dto.js';

/** Reading, renaming and removing an organization's projects (docs/product-rules.md, "Changing and removing resources"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects')
export class ProjectEditsController {
  constructor(private readonly projects: ProjectEditsService) {}

  @Get()
  @ApiOperation({ summary: "List the organization's projects" })
  @ApiOkResponse({ type: ProjectListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<ProjectListDto> {
    const { items, total } = await this.projects.list(orgId, pageOf(query), query.query);
    return { projects: items.map((p) => ({ id: p.id, name: p.name })), total };
  }

  @Get(':projectId')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async get(@Param('orgId') orgId: string, @Param('projectId') projectId: string): Promise<ProjectDto> {
    const project = await this.projects.get(orgId, projectId);
    return { id: project.id, name: project.name };
  }

  @Patch(':projectId')
  @ApiOperation({ summary: 'Rename a project' })
  @ApiOkResponse({ type: ProjectDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async update(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: UpdateProjectDto,
  ): Promise<ProjectDto> {
    const project = dto.name === undefined ? await this.projects.get(orgId, projectId) : await this.projects.rename(caller.userId, orgId, projectId, dto.name);
    return { id: project.id, name: project.name };
  }

  @Delete(':projectId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a project without applications (409 while it has any)' })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('projectId') projectId: string): Promise<void> {
    await this.projects.remove(caller.userId, orgId, projectId);
  }
}
