import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';
import { AuditStreamsService } from '../audit-streams.service.js';
import type { StreamOwner } from '../audit-streams.service.js';
import { AuditStreamCreatedDto, AuditStreamDto, AuditStreamListDto, CreateAuditStreamDto, UpdateAuditStreamDto } from './audit-streams.dto.js';

const INSTANCE: StreamOwner = { kind: 'instance' };

/** The instance's audit streams (docs/audit-and-signals.md): every organization's events, or one's with `orgId`. */
@ApiTags('admin')
@Controller('admin/v1/audit-streams')
export class InstanceAuditStreamsController {
  constructor(private readonly streams: AuditStreamsService) {}

  @Post()
  @HttpCode(201)
  @SecretResponse()
  @ApiOperation({
    summary: 'Stream the audit records of every organization, or of one',
    description: "An https stream's signing secret is shown only in this response.",
  })
  @ApiCreatedResponse({ type: AuditStreamCreatedDto })
  @ApiNotFoundResponse({ description: 'the orgId of the body names no organization' })
  @Authenticated({ role: Role.IamOwner })
  create(@Caller() caller: Principal, @Body() dto: CreateAuditStreamDto): Promise<AuditStreamCreatedDto> {
    return this.streams.create(caller.userId, INSTANCE, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the instance's audit streams" })
  @ApiOkResponse({ type: AuditStreamListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListSearchQueryDto): Promise<AuditStreamListDto> {
    const { items, total } = searchedList(await this.streams.list(INSTANCE), query, (s) => [s.name, s.url]);
    return { streams: items, total };
  }

  @Get(':streamId')
  @ApiOperation({ summary: 'Read an audit stream and where its delivery stands' })
  @ApiOkResponse({ type: AuditStreamDto })
  @ApiNotFoundResponse({ description: 'no such stream of the instance' })
  @Authenticated({ role: Role.IamOwner })
  get(@Param('streamId') id: string): Promise<AuditStreamDto> {
    return this.streams.get(INSTANCE, id);
  }

  @Patch(':streamId')
  @ApiOperation({ summary: 'Change where an audit stream sends, its name or its event types' })
  @ApiOkResponse({ type: AuditStreamDto })
  @ApiNotFoundResponse({ description: 'no such stream of the instance' })
  @Authenticated({ role: Role.IamOwner })
  update(@Caller() caller: Principal, @Param('streamId') id: string, @Body() dto: UpdateAuditStreamDto): Promise<AuditStreamDto> {
    return this.streams.update(caller.userId, INSTANCE, id, dto);
  }

  @Delete(':streamId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an audit stream' })
  @ApiNoContentResponse({ description: 'the stream is deleted' })
  @ApiNotFoundResponse({ description: 'no such stream of the instance' })
  @Authenticated({ role: Role.IamOwner })
  remove(@Caller() caller: Principal, @Param('streamId') id: string): Promise<void> {
    return this.streams.remove(caller.userId, INSTANCE, id);
  }
}
