import { All, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated, Public } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimExceptionFilter } from '../errors/scim-exception.filter.js';
import { ScimOrgGuard } from '../http/scim-org.guard.js';
import { ScimUrls } from '../http/scim-urls.js';
import { listQueryFromParams, listQueryFromSearch, selectionParams } from '../query/scim-list-query.js';
import type { ListQuery } from '../query/scim-list-query.js';
import { cursorListResponse, listResponse } from '../scim-list.response.js';
import { readPatchRequest } from '../users/scim-user.patch.js';
import { groupChangesOf } from './scim-group.patch.js';
import { validateGroup } from './scim-group.validator.js';
import { GROUP_LIST, ScimGroupsService } from './scim-groups.service.js';

const MANAGER = { role: Role.OrgUserManager, orgParam: 'orgId' } as const;

/** `/Groups` of RFC 7644 §3 for one organization (docs/product-rules.md, "Groups"). */
@ApiExcludeController()
@Controller('scim/v2/:orgId')
@UseFilters(ScimExceptionFilter)
@UseGuards(ScimOrgGuard)
export class ScimGroupsController {
  constructor(
    private readonly groups: ScimGroupsService,
    private readonly urls: ScimUrls,
  ) {}

  @Get('Groups')
  @Authenticated(MANAGER)
  list(@Param('orgId') orgId: string, @Query() params: Record<string, unknown>) {
    return this.search(orgId, listQueryFromParams(params, GROUP_LIST));
  }

  @Post('Groups/.search')
  @HttpCode(200)
  @Authenticated(MANAGER)
  searchByBody(@Param('orgId') orgId: string, @Body() body: unknown) {
    return this.search(orgId, listQueryFromSearch(body, GROUP_LIST));
  }

  // Before `Groups/:id`, which would otherwise read ".search" as an id.
  @All('Groups/.search')
  @Public()
  searchMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('POST');
  }

  @Get('Groups/:id')
  @Authenticated(MANAGER)
  get(@Param('orgId') orgId: string, @Param('id') id: string, @Query() params: Record<string, unknown>) {
    return this.groups.get(orgId, id, listQueryFromParams(selectionParams(params), GROUP_LIST).selection);
  }

  @Post('Groups')
  @HttpCode(201)
  @Authenticated(MANAGER)
  async create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const group = await this.groups.create(caller.userId, orgId, validateGroup(body));
    res.location(this.urls.group(orgId, String(group.id)));
    return group;
  }

  @Put('Groups/:id')
  @Authenticated(MANAGER)
  replace(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string, @Body() body: unknown) {
    return this.groups.replace(caller.userId, orgId, id, validateGroup(body));
  }

  /** 204 without a body, as for Users (RFC 7644 §3.5.2 allows 200 with the resource or 204). */
  @Patch('Groups/:id')
  @HttpCode(204)
  @Authenticated(MANAGER)
  async patch(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string, @Body() body: unknown): Promise<void> {
    await this.groups.edit(caller.userId, orgId, id, groupChangesOf(readPatchRequest(body)));
  }

  @Delete('Groups/:id')
  @HttpCode(204)
  @Authenticated(MANAGER)
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string): Promise<void> {
    await this.groups.remove(caller.userId, orgId, id);
  }

  // 405 with the methods each path does support (RFC 9110 §15.5.6).
  @All('Groups')
  @Public()
  collectionMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('GET, HEAD, POST');
  }

  @All('Groups/:id')
  @Public()
  resourceMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('GET, HEAD, PUT, PATCH, DELETE');
  }

  private async search(orgId: string, query: ListQuery) {
    const { total, resources, nextCursor } = await this.groups.list(orgId, query);
    return query.cursor ? cursorListResponse(resources, total, nextCursor) : listResponse(resources, total, query.startIndex);
  }
}
