import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { IdpTests } from '../idp-tests.service.js';
import { CreateIdpDto, IdpCreatedDto, IdpDto, IdpListDto, IdpTestDto, UpdateIdpDto } from './idps.dto.js';
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';

/** An organization's upstream identity providers (docs/federation.md). Secrets are never returned. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/idps')
export class IdpsController {
  constructor(
    private readonly idps: IdentityProvidersService,
    private readonly tests: IdpTests,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add an identity provider', description: 'The answer names the callback URL to register at the upstream.' })
  @ApiCreatedResponse({ type: IdpCreatedDto })
  @ApiNotFoundResponse({ description: 'no such organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateIdpDto): Promise<IdpCreatedDto> {
    return this.idps.create(caller.userId, orgId, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's identity providers" })
  @ApiOkResponse({ type: IdpListDto })
  @ApiNotFoundResponse({ description: 'no such organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<IdpListDto> {
    const { items, total } = searchedList(await this.idps.list(orgId), query, (idp) => [idp.name, idp.issuer, idp.entityId]);
    return { idps: items, total };
  }

  @Get(':idpId')
  @ApiOperation({ summary: 'Read an identity provider' })
  @ApiOkResponse({ type: IdpDto })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<IdpDto> {
    return this.idps.get(orgId, idpId);
  }

  @Patch(':idpId')
  @ApiOperation({ summary: 'Change an identity provider', description: 'The fields sent change; a new clientSecret replaces the stored one.' })
  @ApiOkResponse({ type: IdpDto })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  change(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('idpId') idpId: string, @Body() dto: UpdateIdpDto): Promise<IdpDto> {
    return this.idps.change(caller.userId, orgId, idpId, dto);
  }

  @Post(':idpId/test')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start a test sign-in',
    description:
      'A one-time link to the upstream (10 minutes). The sign-in there ends on a page showing the upstream identity and which user the rules would pick; nothing is linked or created, no session is made.',
  })
  @ApiCreatedResponse({ type: IdpTestDto })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  test(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<IdpTestDto> {
    return this.tests.start(caller.userId, orgId, idpId);
  }

  @Delete(':idpId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an identity provider', description: 'The identities linked through it are removed with it.' })
  @ApiNoContentResponse({ description: 'the identity provider is removed' })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<void> {
    return this.idps.remove(caller.userId, orgId, idpId);
  }
}
