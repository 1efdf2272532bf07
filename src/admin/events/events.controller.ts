import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
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
  @Authenticated({ role: Role.IamOwner })
  async search(@Body() dto: SearchEventsDto): Promise<EventListDto> {
    return { events: await this.events.search(dto) };
  }
}
