import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { Role } from '../common/auth/roles.js';
import type { OrganizationEntity } from '../users/entities/organization.entity.js';
import { OrganizationsService } from '../users/organizations.service.js';
import { OrganizationRemovalService } from '../users/resources/organization-removal.service.js';
import { CreateOrgDto, OrgDto, OrgListDto, UpdateOrgDto } from './dto/org.dto.js';
import { ListSearchQueryDto, pageOfList } from '../common/http/validation/list-page.dto.js';
import { textContains } from '../common/database/name-search.js';

@ApiTags('admin')
@Controller('admin/v1/orgs')
export class OrgsController {
  constructor(
    private readonly orgs: OrganizationsService,
    private readonly removal: OrganizationRemovalService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the organizations' })
  @ApiOkResponse({ type: OrgListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListSearchQueryDto): Promise<OrgListDto> {
    const orgs = await this.orgs.list();
    const { items, total } = pageOfList(query.query ? orgs.filter((org) => textContains(org.name, query.query!)) : orgs, query);
    return { orgs: items.map(toOrgDto), total };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an organization' })
  @ApiCreatedResponse({ type: OrgDto })
  @ApiConflictResponse({ description: 'an organization with this primary domain exists' })
  @Authenticated({ role: Role.IamOwner })
  async create(@Caller() caller: Principal, @Body() dto: CreateOrgDto): Promise<OrgDto> {
    return toOrgDto(await this.orgs.create(caller.userId, dto.name));
  }

  @Get(':orgId')
  @ApiOperation({ summary: 'Get an organization' })
  @ApiOkResponse({ type: OrgDto })
  @Authenticated({ role: Role.IamOwner })
  async get(@Param('orgId') orgId: string): Promise<OrgDto> {
    return toOrgDto(await this.orgs.get(orgId));
  }

  @Patch(':orgId')
  @ApiOperation({ summary: 'Rename an organization (its primary domain stays)' })
  @ApiOkResponse({ type: OrgDto })
  @Authenticated({ role: Role.IamOwner })
  async update(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: UpdateOrgDto): Promise<OrgDto> {
    return toOrgDto(dto.name === undefined ? await this.orgs.get(orgId) : await this.orgs.rename(caller.userId, orgId, dto.name));
  }

  @Delete(':orgId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an organization with everything it owns and its users (not the default organization)' })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.IamOwner })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string): Promise<void> {
    await this.removal.remove(caller.userId, orgId);
  }
}

function toOrgDto(org: OrganizationEntity): OrgDto {
  return { id: org.id, name: org.name, primaryDomain: org.primaryDomain };
}
