import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';
import { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import { EffectiveGrantListDto } from '../dto/project-access.dto.js';

/** A user's effective grants (docs/product-rules.md, "Application access"): one entry per grant that reaches the user. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId/grants')
export class UserGrantsController {
  constructor(private readonly grants: ProjectGrantsService) {}

  @Get()
  @ApiOperation({ summary: "A user's effective grants, its own and its groups'" })
  @ApiOkResponse({ type: EffectiveGrantListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiForbiddenResponse({ description: 'the user holds a role the caller lacks' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Query() query: ListPageQueryDto,
  ): Promise<EffectiveGrantListDto> {
    const { items, total } = pageOfList(await this.grants.effectiveFor(caller.userId, orgId, userId), query);
    return { grants: items, total };
  }
}
