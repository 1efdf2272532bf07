import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { LoginPolicyService } from '../../users/login-policy.service.js';
import { LoginPolicyDto } from '../dto/login-policy.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/login-policy')
export class LoginPolicyController {
  constructor(private readonly policies: LoginPolicyService) {}

  @Get()
  @ApiOperation({ summary: "Read the organization's login policy" })
  @ApiOkResponse({ type: LoginPolicyDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string): Promise<LoginPolicyDto> {
    return this.policies.get(orgId);
  }

  @Put()
  @ApiOperation({ summary: "Set the organization's login policy" })
  @ApiOkResponse({ type: LoginPolicyDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  set(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: LoginPolicyDto): Promise<LoginPolicyDto> {
    return this.policies.set(caller.userId, orgId, dto);
  }
}
