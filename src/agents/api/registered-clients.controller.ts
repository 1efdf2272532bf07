import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ListSearchQueryDto, pageOf, searchedList } from '../../common/http/validation/list-page.dto.js';
import { RegisteredClients } from '../registration/registered-clients.service.js';
import { RegisteredClientListDto, registeredClientDto, registeredClientTexts } from './registered-client.dto.js';

/** The clients that registered themselves to the organization (docs/agents.md, "Dynamic registration"): listed and removed. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/registered-clients')
export class RegisteredClientsController {
  constructor(private readonly clients: RegisteredClients) {}

  @Get()
  @ApiOperation({ summary: 'List the clients registered to the organization (RFC 7591), newest first; ?query= by client name, id, URI or software id' })
  @ApiOkResponse({ type: RegisteredClientListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<RegisteredClientListDto> {
    const { items, total } = query.query
      ? searchedList(await this.clients.everyOf(orgId), query, registeredClientTexts)
      : await this.clients.ofOrg(orgId, pageOf(query));
    return { total, clients: items.map(registeredClientDto) };
  }

  @Delete(':clientId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a registered client with every grant, code and token issued to it (event agent.client.removed, reason removed)',
  })
  @ApiNoContentResponse({ description: 'removed: its tokens stop at once, and it makes room below DYNAMIC_REGISTRATION_MAX_PER_ORG' })
  @ApiNotFoundResponse({ description: 'no such client registered to the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('clientId') clientId: string): Promise<void> {
    await this.clients.remove(caller.userId, orgId, clientId);
  }
}
