import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import type { AgentConsent } from '../../common/auth/user-tokens.js';
import { ListSearchQueryDto, pageOf, searchedList } from '../../common/http/validation/list-page.dto.js';
import { UserAgentsService } from '../consent/user-agents.service.js';
import { ConnectedAgentListDto, OrgConnectedAgentListDto } from './connected-agents.dto.js';
import type { ConnectedAgentDto } from './connected-agents.dto.js';

/** The organization's people's connected agents (docs/agents.md, "Consent and connected agents"): listed and revoked. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId')
export class UserAgentsController {
  constructor(private readonly agents: UserAgentsService) {}

  @Get('agents')
  @ApiOperation({
    summary:
      "List the agent clients the organization's people allowed to act for them, newest change first; ?query= by client name, client id, resource or the person's user name",
  })
  @ApiOkResponse({ type: OrgConnectedAgentListDto })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async listOfOrg(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<OrgConnectedAgentListDto> {
    const { items, total, people } = await this.agents.ofOrg(orgId, pageOf(query), query.query);
    const users = people.map(({ displayName, ...person }) => (displayName === null ? person : { ...person, displayName }));
    return { total, agents: items.map(agentDto), users };
  }

  @Get('users/:userId/agents')
  @ApiOperation({ summary: 'List the agent clients the user allowed to act for them, one entry per client and resource' })
  @ApiOkResponse({ type: ConnectedAgentListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async listOfUser(@Param('orgId') orgId: string, @Param('userId') userId: string, @Query() query: ListSearchQueryDto): Promise<ConnectedAgentListDto> {
    const { items, total } = searchedList(await this.agents.ofUser(orgId, userId), query, (a) => [a.clientName, a.clientId, a.resource]);
    return { total, agents: items.map(agentDto) };
  }

  @Delete('users/:userId/agents/:clientId')
  @HttpCode(204)
  @ApiOperation({
    summary: "End the user's consent to the client and, at once, every grant, code and token of it for the user (event user.agent.revoked)",
  })
  @ApiNoContentResponse({ description: 'ended: the refresh token answers invalid_grant at its next use' })
  @ApiForbiddenResponse({ description: 'the user holds a role the caller lacks' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no consent of the user to that client' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async revoke(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Param('clientId') clientId: string,
  ): Promise<void> {
    await this.agents.revoke(caller.userId, orgId, userId, clientId);
  }
}

function agentDto(consent: AgentConsent): ConnectedAgentDto {
  return {
    clientId: consent.clientId,
    clientName: consent.clientName,
    userId: consent.userId,
    resource: consent.resource,
    scopes: consent.scopes,
    connectedAt: consent.connectedAt.toISOString(),
    changedAt: consent.changedAt.toISOString(),
  };
}
