import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { UserIdentitiesService } from '../user-identities.service.js';
import { IdentityDto, IdentityListDto, LinkIdentityDto } from './identities.dto.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';

/**
 * A user's linked upstream identities (docs/federation.md). The acting rule holds (SECURITY.md, "Who may act on whom");
 * linking a user who holds any role needs IAM_OWNER.
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId/identities')
export class UserIdentitiesController {
  constructor(private readonly identities: UserIdentitiesService) {}

  @Get()
  @ApiOperation({ summary: "List a user's linked upstream identities" })
  @ApiOkResponse({ type: IdentityListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Query() query: ListPageQueryDto,
  ): Promise<IdentityListDto> {
    const { items, total } = pageOfList(await this.identities.list(caller.userId, orgId, userId), query);
    return { identities: items, total };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Link an upstream identity to a user' })
  @ApiCreatedResponse({ type: IdentityDto })
  @ApiNotFoundResponse({ description: 'no such user or identity provider in the organization' })
  @ApiConflictResponse({ description: 'the identity is linked to a user already, or the user to another identity of that IdP' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  link(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() dto: LinkIdentityDto): Promise<IdentityDto> {
    return this.identities.link(caller.userId, orgId, userId, dto.idpId, dto.subject);
  }

  @Delete(':idpId/:subject')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unlink an upstream identity from a user' })
  @ApiNoContentResponse({ description: 'the identity is unlinked' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no such identity of the user' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async unlink(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Param('idpId') idpId: string,
    @Param('subject') subject: string,
  ): Promise<void> {
    await this.identities.unlink(caller.userId, orgId, userId, idpId, subject);
  }
}
