import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Role } from '../../common/auth/roles.js';
import { EventListDto, SearchEventsDto } from '../dto/events.dto.js';
import { EventSearchService } from './event-search.service.js';

@ApiTags('admin')
@Controller('admin/v1/events')
export class EventsController {
  constructor(private readonly events: EventSearchService) {}

  @Post('_search')
  @HttpCode(200)
  @ApiOperation({ summary: 'Search the event log', description: 'With `wait`, a feed: the answer waits for a matching event to commit (docs/product-rules.md, "Import and event search").' })
  @ApiOkResponse({ type: EventListDto })
  @Authenticated({ role: Role.IamOwner })
  async search(@Body() dto: SearchEventsDto): Promise<EventListDto> {
    return { events: await this.events.search(dto) };
  }
}
