import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import { WebhooksService } from '../webhooks.service.js';
import type { WebhookOwner } from '../webhooks.service.js';
import { deliveryView } from './webhook-views.js';
import { CreateWebhookDto, DeliveryListDto, WebhookCreatedDto, WebhookListDto } from './webhooks.dto.js';
import { ListPageQueryDto, ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';

const INSTANCE: WebhookOwner = { kind: 'instance' };

/** The instance's webhook subscriptions (docs/webhooks.md): every organization's events, or one's with `orgId`. */
@ApiTags('admin')
@Controller('admin/v1/webhooks')
export class InstanceWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @SecretResponse()
  @ApiOperation({
    summary: 'Subscribe a webhook to the events of every organization, or of one',
    description: 'The signing secret is shown only in this response.',
  })
  @ApiCreatedResponse({ type: WebhookCreatedDto })
  @ApiNotFoundResponse({ description: 'the orgId of the body names no organization' })
  @Authenticated({ role: Role.IamOwner })
  create(@Caller() caller: Principal, @Body() dto: CreateWebhookDto): Promise<WebhookCreatedDto> {
    return this.webhooks.create(caller.userId, INSTANCE, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the instance's webhooks" })
  @ApiOkResponse({ type: WebhookListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListSearchQueryDto): Promise<WebhookListDto> {
    const { items, total } = searchedList(await this.webhooks.list(INSTANCE), query, (w) => [w.url]);
    return { webhooks: items, total };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook' })
  @ApiNoContentResponse({ description: 'the webhook is deleted' })
  @ApiNotFoundResponse({ description: 'no such webhook of the instance' })
  @Authenticated({ role: Role.IamOwner })
  remove(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.webhooks.remove(caller.userId, INSTANCE, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "List a webhook's deliveries" })
  @ApiOkResponse({ type: DeliveryListDto })
  @ApiNotFoundResponse({ description: 'no such webhook of the instance' })
  @Authenticated({ role: Role.IamOwner })
  async deliveries(@Param('id') id: string, @Query() query: ListPageQueryDto): Promise<DeliveryListDto> {
    return { deliveries: (await this.webhooks.deliveries(INSTANCE, id, query.limit, query.offset)).map(deliveryView) };
  }
}
