import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { toSamlIdpDto } from '../dto/applications.dto.js';
import { ProjectsService } from '../../users/projects.service.js';
import { CreateSamlAppDto, SamlAppCreatedDto } from '../dto/saml-applications.dto.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { readMetadataDocument } from '../../common/net/configured-target.js';
import { AppCreatedDto, ApplicationKeyDto, CreateApiAppDto, CreateOidcAppDto, CreateProjectDto, EmptyDto, ProjectCreatedDto } from '../dto/projects.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a project' })
  @ApiCreatedResponse({ type: ProjectCreatedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateProjectDto): Promise<ProjectCreatedDto> {
    const project = await this.projects.createProject(caller.userId, orgId, dto.name);
    return { id: project.id };
  }

  @Post(':projectId/apps/oidc')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an OIDC application', description: 'The client secret, if any, is shown only in this response.' })
  @ApiCreatedResponse({ type: AppCreatedDto })
  @ApiNotFoundResponse({ description: 'no such project in the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  createOidcApp(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: CreateOidcAppDto,
  ): Promise<AppCreatedDto> {
    return this.projects.createOidcApplication(
      caller.userId,
      orgId,
      projectId,
      {
        name: dto.name,
        redirectUris: dto.redirectUris,
        postLogoutRedirectUris: dto.postLogoutRedirectUris ?? [],
        responseTypes: dto.responseTypes,
        grantTypes: dto.grantTypes,
        authMethod: dto.authMethod,
        accessTokenType: dto.accessTokenType ?? 'opaque',
        idTokenUserinfoAssertion: dto.idTokenUserinfoAssertion ?? false,
        devMode: dto.devMode ?? false,
        apiAccess: dto.apiAccess ?? false,
        requirePushedAuthorizationRequests: dto.requirePushedAuthorizationRequests ?? false,
        requireSignedRequestObject: dto.requireSignedRequestObject ?? false,
        requestObjectRequiresExp: dto.requestObjectRequiresExp ?? false,
        authorizationSignedResponseAlg: dto.authorizationSignedResponseAlg ?? null,
        dpopBoundAccessTokens: dto.dpopBoundAccessTokens ?? false,
        ssfReceiver: dto.ssfReceiver ?? false,
        backchannelLogoutUri: dto.backchannelLogoutUri ?? null,
        backchannelLogoutSessionRequired: dto.backchannelLogoutSessionRequired ?? false,
        jwks: dto.jwks ?? null,
        jwksUri: dto.jwksUri ?? null,
        subjectType: dto.subjectType ?? 'public',
        access: dto.access,
        homeUrl: dto.homeUrl,
      },
      dto.tokens,
    );
  }

  @Post(':projectId/apps/api')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API application', description: 'The client secret, if any, is shown only in this response.' })
  @ApiCreatedResponse({ type: AppCreatedDto })
  @ApiNotFoundResponse({ description: 'no such project in the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  createApiApp(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: CreateApiAppDto,
  ): Promise<AppCreatedDto> {
    return this.projects.createApiApplication(caller.userId, orgId, projectId, dto);
  }

  @Post(':projectId/apps/saml')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a SAML application',
    description:
      "The service provider's fields, or its metadata (metadataXml) for those not given; the answer names this organization's IdP as the service provider is to be told it.",
  })
  @ApiCreatedResponse({ type: SamlAppCreatedDto })
  @ApiNotFoundResponse({ description: 'no such project in the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async createSamlApp(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() dto: CreateSamlAppDto,
  ): Promise<SamlAppCreatedDto> {
    const { metadataUrl, access, homeUrl, ...fields } = dto;
    if (metadataUrl !== undefined && fields.metadataXml !== undefined)
      throw DomainError.invalidField('metadataUrl', 'give metadataXml or metadataUrl, not both');
    // Read before anything is written, under the outbound rules (docs/saml.md, "SAML applications"); the document is then taken as if pasted.
    const rules = { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks, timeoutMs: this.config.idpTimeoutMs };
    const metadataXml = metadataUrl === undefined ? fields.metadataXml : await readMetadataDocument(metadataUrl, 'metadataUrl', rules);
    const { appId } = await this.projects.createSamlApplication(caller.userId, orgId, projectId, { ...fields, metadataXml }, { access, homeUrl });
    return { appId, ...toSamlIdpDto(this.config.publicUrl, orgId) };
  }

  @Post(':projectId/apps/:appId/keys')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a key to an application',
    description: 'Only for applications using private_key_jwt (400 otherwise); the private key is shown only in this response.',
  })
  @ApiCreatedResponse({ type: ApplicationKeyDto })
  @ApiNotFoundResponse({ description: 'no such project or application in the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async addAppKey(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Body() _dto: EmptyDto,
  ): Promise<ApplicationKeyDto> {
    const key = await this.projects.addApplicationKey(caller.userId, orgId, projectId, appId);
    return { keyId: key.keyId, keyDetails: { type: 'application', keyId: key.keyId, key: key.privateKeyPem, clientId: key.clientId } };
  }
}
