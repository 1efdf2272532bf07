import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import { WebhooksService } from '../webhooks.service.js';
import { deliveryView } from './webhook-views.js';
import { CreateWebhookDto, DeliveryListDto, WebhookCreatedDto, WebhookListDto } from './webhooks.dto.js';
import { ListPageQueryDto, ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';

/** An organization's webhook subscriptions (docs/webhooks.md): only events whose resource owner is the organization. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/webhooks')
export class OrgWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @SecretResponse()
  @ApiOperation({ summary: "Subscribe a webhook to the organization's events", description: 'The signing secret is shown only in this response.' })
  @ApiCreatedResponse({ type: WebhookCreatedDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateWebhookDto): Promise<WebhookCreatedDto> {
    return this.webhooks.create(caller.userId, { kind: 'org', orgId }, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's webhooks" })
  @ApiOkResponse({ type: WebhookListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<WebhookListDto> {
    const { items, total } = searchedList(await this.webhooks.list({ kind: 'org', orgId }), query, (w) => [w.url]);
    return { webhooks: items, total };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook' })
  @ApiNoContentResponse({ description: 'the webhook is deleted' })
  @ApiNotFoundResponse({ description: 'no such webhook of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('id') id: string): Promise<void> {
    return this.webhooks.remove(caller.userId, { kind: 'org', orgId }, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "List a webhook's deliveries" })
  @ApiOkResponse({ type: DeliveryListDto })
  @ApiNotFoundResponse({ description: 'no such webhook of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async deliveries(@Param('orgId') orgId: string, @Param('id') id: string, @Query() query: ListPageQueryDto): Promise<DeliveryListDto> {
    return { deliveries: (await this.webhooks.deliveries({ kind: 'org', orgId }, id, query.limit, query.offset)).map(deliveryView) };
  }
}
