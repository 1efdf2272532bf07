import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { Role } from '../common/auth/roles.js';
import type { OrganizationEntity } from '../users/entities/organization.entity.js';
import { OrganizationsService } from '../users/organizations.service.js';
import { CreateOrgDto, OrgDto, OrgListDto } from './dto/org.dto.js';

@ApiTags('admin')
@Controller('admin/v1/orgs')
export class OrgsController {
  constructor(private readonly orgs: OrganizationsService) {}

  @Get()
  @ApiOperation({ summary: 'List the organizations' })
  @ApiOkResponse({ type: OrgListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(): Promise<OrgListDto> {
    return { orgs: (await this.orgs.list()).map(toOrgDto) };
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
}

function toOrgDto(org: OrganizationEntity): OrgDto {
  return { id: org.id, name: org.name, primaryDomain: org.primaryDomain };
}
