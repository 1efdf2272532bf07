import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyCaller, Authenticated } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { Role } from '../common/auth/roles.js';
import { en } from '../texts/catalogs/en.js';
import { LOCALES } from '../texts/locales.js';
import { BrandingDto, BrandingPreviewDto, TextKeysDto } from './branding.dto.js';
import { BrandingPreviews } from './branding-preview.js';
import type { PreviewLink } from './branding-preview.js';
import { BrandingService } from './branding.service.js';
import type { BrandingView } from './branding.service.js';

/** The instance's brand, under every organization's and application's (docs/branding.md). */
@ApiTags('admin')
@Controller('admin/v1/branding')
export class InstanceBrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Get()
  @ApiOperation({ summary: "Read the instance's branding" })
  @ApiOkResponse({ type: BrandingDto })
  @Authenticated({ role: Role.IamOwner })
  get(): Promise<BrandingView> {
    return this.branding.get({ kind: 'instance' });
  }

  @Put()
  @ApiOperation({ summary: "Replace the instance's branding", description: 'An empty document is the design system as it is.' })
  @ApiOkResponse({ type: BrandingDto })
  @Authenticated({ role: Role.IamOwner })
  put(@Caller() caller: Principal, @Body() dto: BrandingDto): Promise<BrandingView> {
    return this.branding.put(caller.userId, { kind: 'instance' }, { ...dto });
  }

  /** The keys and English texts are the product's own (shipped with it): nothing here is about a tenant. */
  @Get('text-keys')
  @ApiOperation({ summary: 'List the text keys a brand may override, with their English text' })
  @ApiOkResponse({ type: TextKeysDto })
  @AnyCaller()
  textKeys(): TextKeysDto {
    return { keys: Object.entries(en).map(([key, english]) => ({ key, english })), locales: [...LOCALES] };
  }
}

/** An organization's brand, over the instance's, on the sign-in pages of its applications. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/branding')
export class OrgBrandingController {
  constructor(
    private readonly branding: BrandingService,
    private readonly previews: BrandingPreviews,
  ) {}

  @Get()
  @ApiOperation({ summary: "Read the organization's branding" })
  @ApiOkResponse({ type: BrandingDto })
  @ApiNotFoundResponse({ description: 'the organization has no branding of its own' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string): Promise<BrandingView> {
    return this.branding.get({ kind: 'org', orgId });
  }

  @Put()
  @ApiOperation({ summary: "Replace the organization's branding" })
  @ApiOkResponse({ type: BrandingDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  put(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: BrandingDto): Promise<BrandingView> {
    return this.branding.put(caller.userId, { kind: 'org', orgId }, { ...dto });
  }

  /**
   * A draft shown, not applied (docs/branding.md, "Preview"): the checks of a `PUT`, then a link to the sign-in
   * pages with it for ten minutes. The same role as setting the brand: it shows nothing a `PUT` could not.
   */
  @Post('preview')
  @HttpCode(200)
  @ApiOperation({ summary: "Preview a draft of the organization's branding", description: 'Nothing is applied; the link shows the draft for ten minutes.' })
  @ApiOkResponse({ type: BrandingPreviewDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  preview(@Param('orgId') orgId: string, @Body() dto: BrandingDto): Promise<PreviewLink> {
    return this.previews.create({ kind: 'org', orgId }, { ...dto });
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: "Remove the organization's branding (the instance's applies)" })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'the organization has no branding of its own' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string): Promise<void> {
    return this.branding.remove(caller.userId, { kind: 'org', orgId });
  }
}

/** An application's brand, over its organization's, on its own sign-in pages. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding')
export class AppBrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Get()
  @ApiOperation({ summary: "Read the application's branding" })
  @ApiOkResponse({ type: BrandingDto })
  @ApiNotFoundResponse({ description: 'no such application of the project, or it has no branding of its own' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string, @Param('projectId') projectId: string, @Param('appId') appId: string): Promise<BrandingView> {
    return this.branding.get({ kind: 'app', orgId, projectId, appId });
  }

  @Put()
  @ApiOperation({ summary: "Replace the application's branding" })
  @ApiOkResponse({ type: BrandingDto })
  @ApiNotFoundResponse({ description: 'no such application of the project' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  put(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Param('appId') appId: string,
    @Body() dto: BrandingDto,
  ): Promise<BrandingView> {
    return this.branding.put(caller.userId, { kind: 'app', orgId, projectId, appId }, { ...dto });
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: "Remove the application's branding (its organization's applies)" })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'no such application of the project, or it has no branding of its own' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('projectId') projectId: string, @Param('appId') appId: string): Promise<void> {
    return this.branding.remove(caller.userId, { kind: 'app', orgId, projectId, appId });
  }
}
