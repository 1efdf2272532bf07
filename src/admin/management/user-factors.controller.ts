import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { FactorsService } from '../../users/factors/factors.service.js';
import { UserFactorListDto } from '../dto/user-factors.dto.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';

/**
 * A user's second factors. Listing and removing both go through the acting rule (SECURITY.md, "Who may
 * act on whom"): a caller sees or removes the factors of a user only when it holds every role that user holds.
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId/factors')
export class UserFactorsController {
  constructor(private readonly factors: FactorsService) {}

  @Get()
  @ApiOkResponse({ type: UserFactorListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @ApiOperation({ summary: "List a user's second factors" })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Query() query: ListPageQueryDto,
  ): Promise<UserFactorListDto> {
    const { items, total } = pageOfList(await this.factors.list(caller.userId, orgId, userId), query);
    return { factors: items, total };
  }

  @Delete(':factorId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the factor is removed' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no such factor of the user' })
  @ApiOperation({ summary: "Remove a user's second factor" })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async remove(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Param('factorId') factorId: string,
  ): Promise<void> {
    await this.factors.remove(caller.userId, orgId, userId, factorId);
  }
}
