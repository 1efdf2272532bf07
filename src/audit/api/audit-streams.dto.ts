import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { EVENT_MESSAGES } from '../../common/events/event-types.js';

const EVENT_TYPES = Object.keys(EVENT_MESSAGES);
const STREAM_TYPES = ['syslog', 'https'] as const;

/** `PATCH …/audit-streams/{id}` (docs/audit-and-signals.md): where records go next; the chain goes on unbroken. */
export class UpdateAuditStreamDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ maxLength: 2048, example: 'syslog+tls://siem.example.com:6514' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ description: "PEM certificates the syslog receiver's chain must end in (absent: the system's authorities)" })
  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  caCertificate?: string;

  @ApiPropertyOptional({ type: [String], enum: EVENT_TYPES, description: 'only these event types; absent or empty: every type' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(EVENT_TYPES, { each: true, message: 'eventTypes must name known event types' })
  eventTypes?: string[];
}

/** `POST …/audit-streams` (docs/audit-and-signals.md). Where the URL may point is decided by the service. */
export class CreateAuditStreamDto extends UpdateAuditStreamDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  declare name: string;

  @ApiProperty({ enum: STREAM_TYPES })
  @IsIn(STREAM_TYPES, { message: 'type must be syslog or https' })
  type: 'syslog' | 'https';

  @ApiProperty({ maxLength: 2048, example: 'syslog+tls://siem.example.com:6514' })
  @IsString()
  @MaxLength(2048)
  declare url: string;

  @ApiPropertyOptional({ description: "only this organization's events (instance streams; an organization's own stream: its id or absent)" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  orgId?: string;
}

export class AuditStreamCreatedDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ example: 'whsec_…', description: 'https streams: the signing secret (Standard Webhooks); shown only in this response' })
  secret?: string;
}

export class AuditStreamDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STREAM_TYPES }) type: 'syslog' | 'https';
  @ApiProperty() url: string;
  @ApiProperty({ type: String, nullable: true, description: "null: every organization's events" }) orgId: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'null: every type' }) eventTypes: string[] | null;
  @ApiProperty({ enum: ['active', 'retrying', 'failing'], description: 'failing: the receiver has not taken a batch for 24 h (still retried)' })
  state: 'active' | 'retrying' | 'failing';
  @ApiProperty({ description: 'events not yet delivered' }) lag: number;
  @ApiProperty({ description: 'the sequence of the last record the receiver took (0: none yet)' }) lastDeliveredSequence: number;
  @ApiProperty({ description: 'batches not taken since the last one that was (the back-off doubles with each)' }) failedAttempts: number;
  @ApiPropertyOptional({ format: 'date-time', description: 'while retrying: when the batch not taken is sent again' }) nextAttemptAt?: string;
  @ApiPropertyOptional({ description: 'why the last batch was not taken' }) lastError?: string;
}

export class AuditStreamListDto {
  @ApiProperty({ type: [AuditStreamDto] }) streams: AuditStreamDto[];
  @ApiProperty() total: number;
}
