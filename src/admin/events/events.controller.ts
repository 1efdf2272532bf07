import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Role } from '../../common/auth/roles.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import { EventListDto, SearchEventsDto } from '../dto/events.dto.js';
import { EventSearchService } from './event-search.service.js';
import { mentionedObjectIds, mentionedUserIds } from './event-users.js';

@ApiTags('admin')
@Controller('admin/v1/events')
export class EventsController {
  constructor(
    private readonly events: EventSearchService,
    private readonly directory: UserDirectory,
  ) {}

  /**
   * The names beside the ids come from every organization: an IAM_OWNER, the only caller of this route,
   * may read every user. Were the route opened to organization roles, they would have to be narrowed to
   * the users the caller may read.
   */
  @Post('_search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search the event log',
    description:
      'With `wait`, a feed: the answer waits for a matching event to commit (docs/product-rules.md, "Import and event search"). With `withNames: true`, `users` names the users the events mention and `objects` the organizations, projects, applications and groups.',
  })
  @ApiOkResponse({ type: EventListDto })
  @Authenticated({ role: Role.IamOwner })
  async search(@Body() dto: SearchEventsDto): Promise<EventListDto> {
    const { withNames, ...query } = dto;
    const events = await this.events.search(query);
    // The spec's answer is the records alone; the names cost a read of every user mentioned, so only when asked.
    if (withNames !== true) return { events };
    const users = await this.directory.namesOf(mentionedUserIds(events));
    const objects = await this.directory.objectNamesOf(mentionedObjectIds(events));
    return { events, users: users.map(({ displayName, ...user }) => (displayName === null ? user : { ...user, displayName })), objects };
  }
}
