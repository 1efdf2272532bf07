import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { EVENT_MESSAGES } from '../../common/events/event-types.js';

const EVENT_TYPES = Object.keys(EVENT_MESSAGES);

/** `POST …/webhooks` (docs/webhooks.md). Where the URL may point is decided by the service (it resolves the host). */
export class CreateWebhookDto {
  @ApiProperty({ maxLength: 2048, example: 'https://hooks.example.com/portcullis' })
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
    { message: 'url must be an absolute http or https URL' },
  )
  url: string;

  @ApiPropertyOptional({ type: [String], enum: EVENT_TYPES, description: 'only these event types; absent: every type' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(EVENT_TYPES, { each: true, message: 'eventTypes must name known event types' })
  eventTypes?: string[];

  @ApiPropertyOptional({ description: "only this organization's events (instance subscriptions; an organization's own subscription: its id or absent)" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  orgId?: string;
}

export class WebhookCreatedDto {
  @ApiProperty() id: string;
  @ApiProperty({ example: 'whsec_…', description: 'the signing secret (Standard Webhooks); shown only in this response' }) secret: string;
}

export class WebhookDto {
  @ApiProperty() id: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String], nullable: true, description: 'null: every type' }) eventTypes: string[] | null;
  @ApiProperty({ type: String, nullable: true, description: "null: every organization's events" }) orgId: string | null;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookDto] }) webhooks: WebhookDto[];
  @ApiProperty() total: number;
}

export class DeliveryDto {
  @ApiProperty() eventId: string;
  @ApiProperty({ description: "the event's sequence" }) sequence: string;
  @ApiProperty({ enum: ['delivered', 'pending', 'failing'] }) status: 'delivered' | 'pending' | 'failing';
  @ApiProperty() attempts: number;
  @ApiPropertyOptional({ description: 'HTTP status of the last attempt' }) lastStatus?: number;
  @ApiPropertyOptional({ description: 'why the last attempt failed' }) lastError?: string;
  @ApiPropertyOptional({ description: 'when a pending event is tried again (ISO 8601)' }) nextAttempt?: string;
}

export class DeliveryListDto {
  @ApiProperty({ type: [DeliveryDto] }) deliveries: DeliveryDto[];
}
