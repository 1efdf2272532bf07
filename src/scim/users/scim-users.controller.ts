import { All, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated, Public } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import type { JsonObject } from '../../common/database/columns.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimExceptionFilter } from '../errors/scim-exception.filter.js';
import { ScimOrgGuard } from '../http/scim-org.guard.js';
import { ScimUrls } from '../http/scim-urls.js';
import { project } from '../query/scim-projection.js';
import { listQueryFromParams, listQueryFromSearch, selectionParams } from '../query/scim-list-query.js';
import type { ListQuery } from '../query/scim-list-query.js';
import { cursorListResponse, listResponse } from '../scim-list.response.js';
import type { UserGroup } from '../../users/groups/group.queries.js';
import { toScimUser } from './scim-user.mapper.js';
import type { PresentedUser } from './scim-user.mapper.js';
import { patchUser, readPatchRequest } from './scim-user.patch.js';
import { validateUser } from './scim-user.validator.js';
import { ScimUsersService } from './scim-users.service.js';

const MANAGER = { role: Role.OrgUserManager, orgParam: 'orgId' } as const;

/** `/Users` of RFC 7644 §3 for one organization: bodies are validated here, at the edge. */
@ApiExcludeController()
@Controller('scim/v2/:orgId')
@UseFilters(ScimExceptionFilter)
@UseGuards(ScimOrgGuard)
export class ScimUsersController {
  constructor(
    private readonly users: ScimUsersService,
    private readonly urls: ScimUrls,
  ) {}

  @Get('Users')
  @Authenticated(MANAGER)
  list(@Param('orgId') orgId: string, @Query() params: Record<string, unknown>) {
    return this.search(orgId, listQueryFromParams(params));
  }

  /** RFC 7644 §3.4.3: the same query in a body, kept out of URLs and logs. */
  @Post('Users/.search')
  @HttpCode(200)
  @Authenticated(MANAGER)
  searchByBody(@Param('orgId') orgId: string, @Body() body: unknown) {
    return this.search(orgId, listQueryFromSearch(body));
  }

  // Before `Users/:id`, which would otherwise read ".search" as an id.
  @All('Users/.search')
  @Public()
  searchMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('POST');
  }

  @Get('Users/:id')
  @Authenticated(MANAGER)
  async get(@Param('orgId') orgId: string, @Param('id') id: string, @Query() params: Record<string, unknown>) {
    const selection = listQueryFromParams(selectionParams(params)).selection;
    const user = await this.users.get(orgId, id);
    const groups = await this.users.groupsOf([user], selection);
    return project(this.present(orgId, user, groups), selection);
  }

  @Post('Users')
  @HttpCode(201)
  @Authenticated(MANAGER)
  async create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const user = await this.users.create(caller.userId, orgId, validateUser(body));
    // RFC 7644 §3.3: the URI of the created resource in the Location header.
    res.location(this.urls.user(orgId, user.id));
    return this.present(orgId, user);
  }

  @Put('Users/:id')
  @Authenticated(MANAGER)
  async replace(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string, @Body() body: unknown) {
    return this.present(orgId, await this.users.replace(caller.userId, orgId, id, validateUser(body)));
  }

  /** 204 without a body (RFC 7644 §3.5.2 allows 200 with the resource or 204). */
  @Patch('Users/:id')
  @HttpCode(204)
  @Authenticated(MANAGER)
  async patch(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string, @Body() body: unknown): Promise<void> {
    const operations = readPatchRequest(body);
    await this.users.patch(caller.userId, orgId, id, (user) => patchUser(toScimUser(user, this.urls.base(orgId), { stored: true }), operations));
  }

  @Delete('Users/:id')
  @HttpCode(204)
  @Authenticated(MANAGER)
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string): Promise<void> {
    await this.users.remove(caller.userId, orgId, id);
  }

  // 405 with the methods each path does support (RFC 9110 §15.5.6).
  @All('Users')
  @Public()
  collectionMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('GET, HEAD, POST');
  }

  @All('Users/:id')
  @Public()
  resourceMethodNotAllowed(): never {
    throw ScimError.methodNotAllowed('GET, HEAD, PUT, PATCH, DELETE');
  }

  private async search(orgId: string, query: ListQuery) {
    const { total, users, nextCursor } = await this.users.list(orgId, query);
    const groups = await this.users.groupsOf(users, query.selection);
    const resources = users.map((u) => project(this.present(orgId, u, groups), query.selection));
    return query.cursor ? cursorListResponse(resources, total, nextCursor) : listResponse(resources, total, query.startIndex);
  }

  private present(orgId: string, user: PresentedUser, groups?: Map<string, UserGroup[]>): JsonObject {
    return toScimUser(user, this.urls.base(orgId), { groups: groups?.get(user.id) });
  }
}
