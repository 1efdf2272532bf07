import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';
import { AuditStreamsService } from '../audit-streams.service.js';
import { AuditStreamCreatedDto, AuditStreamDto, AuditStreamListDto, CreateAuditStreamDto, UpdateAuditStreamDto } from './audit-streams.dto.js';

/** An organization's audit streams (docs/audit-and-signals.md): only records of events whose resource owner it is. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/audit-streams')
export class OrgAuditStreamsController {
  constructor(private readonly streams: AuditStreamsService) {}

  @Post()
  @HttpCode(201)
  @SecretResponse()
  @ApiOperation({ summary: "Stream the organization's audit records", description: "An https stream's signing secret is shown only in this response." })
  @ApiCreatedResponse({ type: AuditStreamCreatedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateAuditStreamDto): Promise<AuditStreamCreatedDto> {
    return this.streams.create(caller.userId, { kind: 'org', orgId }, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's audit streams" })
  @ApiOkResponse({ type: AuditStreamListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<AuditStreamListDto> {
    const { items, total } = searchedList(await this.streams.list({ kind: 'org', orgId }), query, (s) => [s.name, s.url]);
    return { streams: items, total };
  }

  @Get(':streamId')
  @ApiOperation({ summary: 'Read an audit stream and where its delivery stands' })
  @ApiOkResponse({ type: AuditStreamDto })
  @ApiNotFoundResponse({ description: 'no such stream of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string, @Param('streamId') id: string): Promise<AuditStreamDto> {
    return this.streams.get({ kind: 'org', orgId }, id);
  }

  @Patch(':streamId')
  @ApiOperation({ summary: 'Change where an audit stream sends, its name or its event types' })
  @ApiOkResponse({ type: AuditStreamDto })
  @ApiNotFoundResponse({ description: 'no such stream of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  update(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('streamId') id: string,
    @Body() dto: UpdateAuditStreamDto,
  ): Promise<AuditStreamDto> {
    return this.streams.update(caller.userId, { kind: 'org', orgId }, id, dto);
  }

  @Delete(':streamId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an audit stream' })
  @ApiNoContentResponse({ description: 'the stream is deleted' })
  @ApiNotFoundResponse({ description: 'no such stream of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('streamId') id: string): Promise<void> {
    return this.streams.remove(caller.userId, { kind: 'org', orgId }, id);
  }
}
