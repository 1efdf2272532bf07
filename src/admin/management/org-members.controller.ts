import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { MembershipsService } from '../../users/memberships.service.js';
import { MemberDto, SetOrgMemberDto } from '../dto/members.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/members')
export class OrgMembersController {
  constructor(private readonly memberships: MembershipsService) {}

  @Put(':userId')
  @ApiOperation({ summary: "Set a user's organization roles" })
  @ApiOkResponse({ type: MemberDto })
  @ApiNotFoundResponse({ description: "no such user" })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async setMember(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() dto: SetOrgMemberDto,
  ): Promise<MemberDto> {
    await this.memberships.setOrgMember(caller.userId, orgId, userId, dto.roles);
    return { userId, roles: [...new Set(dto.roles)] };
  }
}
