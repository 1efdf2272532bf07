import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ListPageQueryDto, ListSearchQueryDto, pageOfList, searchedList } from '../../common/http/validation/list-page.dto.js';
import { DirectoriesService } from '../directories.service.js';
import type { DirectoryView } from '../directories.service.js';
import type { SyncRow } from '../directories.queries.js';
import { DirectorySync } from '../directory-sync.service.js';
import { DirectoryTests } from '../directory-tests.service.js';
import type { DirectoryTestResult } from '../directory-tests.service.js';
import {
  CreateDirectoryDto,
  DirectoryCreatedDto,
  DirectoryHostsDto,
  DirectoryListDto,
  DirectorySyncDto,
  DirectorySyncListDto,
  DirectoryTestResultDto,
  DirectoryViewDto,
  StartSyncDto,
  SyncStartedDto,
  UpdateDirectoryDto,
} from './directories.dto.js';

/** A sync as the API shows it. */
function syncView(sync: SyncRow): DirectorySyncDto {
  return {
    syncId: sync.id,
    kind: sync.kind,
    state: sync.state,
    startedAt: new Date(sync.startedAt).toISOString(),
    ...(sync.finishedAt !== null ? { finishedAt: new Date(sync.finishedAt).toISOString() } : {}),
    counts: sync.counts,
    groups: sync.groups,
    failures: sync.failures,
  };
}

/** An organization's LDAP and Active Directory directories (docs/directories.md). The bind password is never returned. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/directories')
export class DirectoriesController {
  constructor(
    private readonly directories: DirectoriesService,
    private readonly tests: DirectoryTests,
    private readonly syncs: DirectorySync,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a directory', description: "Its url must be among the instance's directory hosts (/admin/v1/directory-hosts)." })
  @ApiCreatedResponse({ type: DirectoryCreatedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateDirectoryDto): Promise<DirectoryCreatedDto> {
    return this.directories.create(caller.userId, orgId, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's directories" })
  @ApiOkResponse({ type: DirectoryListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<DirectoryListDto> {
    const { items, total } = searchedList(await this.directories.list(orgId), query, (d) => [d.name, d.url]);
    return { directories: items, total };
  }

  @Get(':directoryId')
  @ApiOperation({ summary: 'Read a directory' })
  @ApiOkResponse({ type: DirectoryViewDto })
  @ApiNotFoundResponse({ description: 'no such directory of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string, @Param('directoryId') directoryId: string): Promise<DirectoryView> {
    return this.directories.get(orgId, directoryId);
  }

  @Patch(':directoryId')
  @ApiOperation({ summary: 'Change a directory', description: 'The fields sent change; a new bindPassword replaces the stored one.' })
  @ApiOkResponse({ type: DirectoryViewDto })
  @ApiNotFoundResponse({ description: 'no such directory of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  change(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('directoryId') directoryId: string,
    @Body() dto: UpdateDirectoryDto,
  ): Promise<DirectoryView> {
    return this.directories.change(caller.userId, orgId, directoryId, dto);
  }

  @Delete(':directoryId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a directory', description: 'Its users stay, as local users, inactive until linked again or removed.' })
  @ApiNoContentResponse({ description: 'the directory is removed' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('directoryId') directoryId: string): Promise<void> {
    return this.directories.remove(caller.userId, orgId, directoryId);
  }

  @Post(':directoryId/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Test a directory', description: 'Connects, binds as the service account and reads the first five users and groups.' })
  @ApiOkResponse({ type: DirectoryTestResultDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  test(@Param('orgId') orgId: string, @Param('directoryId') directoryId: string): Promise<DirectoryTestResult> {
    return this.tests.run(orgId, directoryId);
  }

  @Post(':directoryId/sync')
  @HttpCode(202)
  @ApiOperation({ summary: 'Sync a directory now', description: 'The sync runs after the answer; 409 while another sync of it runs.' })
  @ApiAcceptedResponse({ type: SyncStartedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  sync(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('directoryId') directoryId: string,
    @Body() dto: StartSyncDto,
  ): Promise<SyncStartedDto> {
    return this.syncs.start(caller.userId, orgId, directoryId, dto.full === true);
  }

  @Get(':directoryId/syncs')
  @ApiOperation({ summary: "A directory's last syncs, newest first" })
  @ApiOkResponse({ type: DirectorySyncListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async listSyncs(@Param('orgId') orgId: string, @Param('directoryId') directoryId: string, @Query() query: ListPageQueryDto): Promise<DirectorySyncListDto> {
    const { items, total } = pageOfList(await this.syncs.list(orgId, directoryId), query);
    return { syncs: items.map(syncView), total };
  }

  @Get(':directoryId/syncs/:syncId')
  @ApiOperation({ summary: 'One sync of a directory' })
  @ApiOkResponse({ type: DirectorySyncDto })
  @ApiNotFoundResponse({ description: 'no such sync of the directory' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async getSync(@Param('orgId') orgId: string, @Param('directoryId') directoryId: string, @Param('syncId') syncId: string): Promise<DirectorySyncDto> {
    return syncView(await this.syncs.get(orgId, directoryId, syncId));
  }
}

/** The hosts and networks directories may reach (docs/directories.md, "Reaching the directory"). */
@ApiTags('admin')
@Controller('admin/v1/directory-hosts')
export class DirectoryHostsController {
  constructor(private readonly directories: DirectoriesService) {}

  @Get()
  @ApiOperation({ summary: 'The hosts directories may reach' })
  @ApiOkResponse({ type: DirectoryHostsDto })
  @Authenticated({ role: Role.IamOwner })
  get(): Promise<DirectoryHostsDto> {
    return this.directories.hosts();
  }

  @Put()
  @ApiOperation({ summary: 'Set the hosts directories may reach', description: 'Host names, IP addresses or CIDR ranges, each optionally with :port.' })
  @ApiOkResponse({ type: DirectoryHostsDto })
  @Authenticated({ role: Role.IamOwner })
  set(@Caller() caller: Principal, @Body() dto: DirectoryHostsDto): Promise<DirectoryHostsDto> {
    return this.directories.setHosts(caller.userId, dto.allow);
  }
}
