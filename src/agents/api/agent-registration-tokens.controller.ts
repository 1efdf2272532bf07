import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { AgentRegistrationTokens } from '../registration/agent-registration-tokens.service.js';
import { AgentRegistrationTokenDto, IssueAgentRegistrationTokenDto } from './agent-registration-token.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/agent-registration-tokens')
export class AgentRegistrationTokensController {
  constructor(private readonly tokens: AgentRegistrationTokens) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Issue an initial access token for dynamic client registration',
    description:
      'RFC 7591 §3: a client that sends it as its bearer token at the registration endpoint is registered for this organization, while the organization’s `dynamicRegistration` is not `off`; the token registers `uses` clients (default 1, at most 100) (docs/agents.md, "Dynamic registration").',
  })
  @ApiCreatedResponse({ type: AgentRegistrationTokenDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async issue(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: IssueAgentRegistrationTokenDto): Promise<AgentRegistrationTokenDto> {
    const { token, expiresAt, uses } = await this.tokens.issue(caller.userId, orgId, dto.expiresIn, dto.uses);
    return { token, expiresAt: expiresAt.toISOString(), uses };
  }
}
