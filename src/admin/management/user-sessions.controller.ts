import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { UserSessionsService } from '../../users/self-service/user-sessions.service.js';
import { UserSessionListDto } from '../dto/user-reads.dto.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';

/** A user's browser sessions (docs/mail.md, "Sessions"): the console lists them per user and ends one. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId/sessions')
export class UserSessionsController {
  constructor(private readonly sessions: UserSessionsService) {}

  @Get()
  @ApiOperation({ summary: "List the user's live sign-in sessions, newest first" })
  @ApiOkResponse({ type: UserSessionListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Param('userId') userId: string, @Query() query: ListPageQueryDto): Promise<UserSessionListDto> {
    const { items, total } = pageOfList(await this.sessions.list(orgId, userId), query);
    return {
      total,
      sessions: items.map((s) => ({
        sessionId: s.sessionId,
        signedInAt: s.signedInAt.toISOString(),
        lastUsedAt: s.lastUsedAt.toISOString(),
        expiresAt: s.expiresAt?.toISOString() ?? null,
        applications: s.clientIds,
        amr: s.amr,
      })),
    };
  }

  @Delete(':sessionId')
  @HttpCode(204)
  @ApiOperation({ summary: 'End one session, as a sign-out would: its access tokens are revoked; an offline_access refresh token stays' })
  @ApiNoContentResponse({ description: 'ended' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no such session of the user' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async end(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Param('sessionId') sessionId: string): Promise<void> {
    await this.sessions.end(caller.userId, orgId, userId, sessionId);
  }
}
