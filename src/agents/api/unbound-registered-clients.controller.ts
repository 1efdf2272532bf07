import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ListSearchQueryDto, pageOf, searchedList } from '../../common/http/validation/list-page.dto.js';
import { RegisteredClients } from '../registration/registered-clients.service.js';
import { RegisteredClientListDto, RemovedRegisteredClientsDto, registeredClientDto, registeredClientTexts } from './registered-client.dto.js';

/**
 * The clients that registered themselves openly and are not bound to an organization yet (docs/agents.md, "Dynamic
 * registration"): no organization owner sees them, and they hold DYNAMIC_REGISTRATION_MAX_UNBOUND until they lapse,
 * so the instance administrator lists and removes them.
 */
@ApiTags('admin')
@Controller('admin/v1/registered-clients/unbound')
export class UnboundRegisteredClientsController {
  constructor(private readonly clients: RegisteredClients) {}

  @Get()
  @ApiOperation({
    summary: 'List the openly registered clients not bound to an organization yet (RFC 7591), newest first; ?query= by client name, id, URI or software id',
  })
  @ApiOkResponse({ type: RegisteredClientListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListSearchQueryDto): Promise<RegisteredClientListDto> {
    const { items, total } = query.query
      ? searchedList(await this.clients.everyOf(null), query, registeredClientTexts)
      : await this.clients.unbound(pageOf(query));
    return { total, clients: items.map(registeredClientDto) };
  }

  @Delete()
  @ApiOperation({
    summary:
      'Remove every unbound registered client registered before the request, each with what was issued to it (event agent.client.removed, reason removed)',
  })
  @ApiOkResponse({ type: RemovedRegisteredClientsDto, description: 'removed: room again below DYNAMIC_REGISTRATION_MAX_UNBOUND' })
  @Authenticated({ role: Role.IamOwner })
  async removeAll(@Caller() caller: Principal): Promise<RemovedRegisteredClientsDto> {
    return { removed: await this.clients.removeAllUnbound(caller.userId) };
  }

  @Delete(':clientId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove an unbound registered client with every grant, code and token issued to it (event agent.client.removed, reason removed)',
  })
  @ApiNoContentResponse({ description: 'removed: its tokens stop at once, and it makes room below DYNAMIC_REGISTRATION_MAX_UNBOUND' })
  @ApiNotFoundResponse({ description: 'no such client, or one bound to an organization (its owner removes it)' })
  @Authenticated({ role: Role.IamOwner })
  async remove(@Caller() caller: Principal, @Param('clientId') clientId: string): Promise<void> {
    await this.clients.removeUnbound(caller.userId, clientId);
  }
}
