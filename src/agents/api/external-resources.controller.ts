import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
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
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';
import { AddExternalResourceDto, ExternalResourceDto, ExternalResourceListDto } from './external-resources.dto.js';
import { ExternalResources } from '../external-resources/external-resources.service.js';

/** Resources at other authorization servers this organization's people get ID-JAGs for (docs/agents.md, "Enterprise-managed authorization"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/external-resources')
export class ExternalResourcesController {
  constructor(private readonly resources: ExternalResources) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add an external resource', description: 'Token exchange then issues ID-JAGs for it to the people granted in its project.' })
  @ApiCreatedResponse({ type: ExternalResourceDto })
  @ApiBadRequestResponse({ description: 'a field is invalid (named), or the project is not one of the organization' })
  @ApiConflictResponse({ description: 'the organization already has an external resource with this issuer and resource' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  add(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: AddExternalResourceDto): Promise<ExternalResourceDto> {
    return this.resources.add(caller.userId, orgId, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's external resources", description: 'Oldest first.' })
  @ApiOkResponse({ type: ExternalResourceListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<ExternalResourceListDto> {
    const { items, total } = searchedList(await this.resources.list(orgId), query, (r) => [r.name, r.issuer, r.resource]);
    return { externalResources: items, total };
  }

  @Delete(':externalResourceId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an external resource', description: 'No ID-JAG is issued for it any more.' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'no such external resource of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('externalResourceId') id: string): Promise<void> {
    return this.resources.remove(caller.userId, orgId, id);
  }
}
