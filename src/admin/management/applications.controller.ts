import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import type { ApplicationEntity } from '../../users/entities/application.entity.js';
import { ApplicationCredentialsService } from '../../users/resources/application-credentials.service.js';
import { ApplicationEditsService } from '../../users/resources/application-edits.service.js';
import { AppChangedDto, AppDto, AppKeyListDto, AppListDto, AppSecretDto, UpdateAppDto, toAppDto, toAppKeyDto, toSamlIdpDto } from '../dto/applications.dto.js';
import { ListPageQueryDto, ListSearchQueryDto, pageOf } from '../../common/http/validation/list-page.dto.js';
import { EmptyDto } from '../dto/projects.dto.js';
import { AppTokenLifetimes } from '../../settings/app-token-lifetimes.service.js';

/**
 * Reading, changing and removing a project's applications, their client secret and their keys
 * (docs/product-rules.md, "Changing and removing resources"). Creating them is ProjectsController's.
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects/:projectId/apps')
export class ApplicationsController {
  constructor(
    private readonly apps: ApplicationEditsService,
    private readonly credentials: ApplicationCredentialsService,
    private readonly lifetimes: AppTokenLifetimes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The applications as the API shows them: SAML ones with their SAML fields and their organization's IdP. */
  private async dtos(apps: ApplicationEntity[]): Promise<AppDto[]> {
    const saml = await this.apps.samlSettings(apps);
    const lifetimes = await this.lifetimes.ofApps(apps.map((app) => app.id));
    return apps.map((app) => {
      const settings = saml.get(app.id);
      // A SAML application issues no OAuth tokens: it has no token lifetimes of its own.
      if (!settings) return { ...toAppDto(app), tokens: lifetimes.get(app.id) ?? {} };
      return toAppDto(app, { settings, idp: toSamlIdpDto(this.config.publicUrl, app.orgId) });
    });
  }

  @Get()
  @ApiOperation({ summary: "List the project's applications" })
  @ApiOkResponse({ type: AppListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Param('projectId') projectId: string, @Query() query: ListSearchQueryDto): Promise<AppListDto> {
    const { items, total } = await this.apps.list(orgId, projectId, pageOf(query), query.query);
    return { apps: await this.dtos(items), total };
  }

  @Get(':appId')
  @ApiOperation({ summary: 'Get an application' })
  @ApiOkResponse({ type: AppDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async get(@Param('orgId') orgId: string, @Param('projectId') projectId: string, @Param('appId') appId: string): Promise<AppDto> {
    const [app] = await this.dtos([await this.apps.get(orgId, projectId, appId)]);
    return app!;
  }

  @Patch(':appId')
  @SecretResponse()
  @ApiOperation({ summary: 'Change an application (any create field; validated like a create)' })
  @ApiOkResponse({ type: AppChangedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async update(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Body() dto: UpdateAppDto,
  ): Promise<AppChangedDto> {
    const { tokens, ...changes } = dto;
    const { app, clientSecret } = await this.apps.change(caller.userId, orgId, projectId, appId, changes, tokens);
    const [changed] = await this.dtos([app]);
    return { ...changed!, ...(clientSecret === undefined ? {} : { clientSecret }) };
  }

  @Delete(':appId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an application, its keys, and every grant and token issued to it' })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
  ): Promise<void> {
    await this.apps.remove(caller.userId, orgId, projectId, appId);
  }

  @Post(':appId/secret')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({ summary: 'Generate a new client secret; the previous one stops working' })
  @ApiCreatedResponse({ type: AppSecretDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async regenerateSecret(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Body() _dto: EmptyDto,
  ): Promise<AppSecretDto> {
    return { clientSecret: await this.credentials.regenerateSecret(caller.userId, orgId, projectId, appId) };
  }

  @Get(':appId/keys')
  @ApiOperation({ summary: "List the application's private_key_jwt keys (public metadata only)" })
  @ApiOkResponse({ type: AppKeyListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async listKeys(
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Query() query: ListPageQueryDto,
  ): Promise<AppKeyListDto> {
    const { items, total } = await this.credentials.listKeys(orgId, projectId, appId, pageOf(query));
    return { keys: items.map(toAppKeyDto), total };
  }

  @Delete(':appId/keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an application key; it stops authenticating' })
  @ApiNoContentResponse({ description: 'removed' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async removeKey(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Param('keyId') keyId: string,
  ): Promise<void> {
    await this.credentials.removeKey(caller.userId, orgId, projectId, appId, keyId);
  }
}
