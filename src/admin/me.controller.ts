import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyCaller } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { MeDto } from './dto/me.dto.js';

/**
 * The caller about itself (ZITADEL's `/auth/v1/users/me`): its organization and the roles it holds, as the
 * guard resolved them. The console decides what to show from this (docs/console.md); every request it
 * then makes is still authorized by its own route's policy.
 */
@ApiTags('auth')
@Controller('auth/v1/users/me')
export class MeController {
  @Get()
  @AnyCaller()
  @ApiOperation({ summary: "The caller's own user id, organization and roles" })
  @ApiOkResponse({ type: MeDto })
  me(@Caller() caller: Principal): MeDto {
    return {
      userId: caller.userId,
      orgId: caller.orgId,
      userType: caller.userType,
      instanceRoles: [...caller.instanceRoles].sort(),
      orgRoles: [...caller.orgRoles].map(([orgId, roles]) => ({ orgId, roles: [...roles].sort() })).sort((a, b) => a.orgId.localeCompare(b.orgId)),
    };
  }
}
