import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JsonObject } from '../../common/database/columns.js';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  Validate,
  ValidatorConstraint,
} from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { parseGoDuration } from '../import/go-duration.parser.js';

const MAX_EVENT_PAGE = 1000;

/** The longest `wait` (docs/product-rules.md, "Import and event search": the feed). */
export const MAX_EVENT_WAIT_MS = 60_000;

@ValidatorConstraint({ name: 'isEventWait' })
class IsEventWait implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const ms = typeof value === 'string' ? parseGoDuration(value) : null;
    return ms !== null && ms <= MAX_EVENT_WAIT_MS;
  }

  defaultMessage(): string {
    return 'wait must be a duration in Go notation of at most 60s, such as 10s, 1m or 500ms';
  }
}

/** `wait` pages forward: it waits for events after `sequence`, which `asc: true` asks for. */
@ValidatorConstraint({ name: 'waitNeedsAsc' })
class WaitNeedsAsc implements ValidatorConstraintInterface {
  validate(_: unknown, args: ValidationArguments): boolean {
    return (args.object as { asc?: unknown }).asc === true;
  }

  defaultMessage(): string {
    return 'wait needs asc: true (it waits for events after sequence)';
  }
}

/** `asc`, `limit`, `event_types` (docs/product-rules.md, "Import and event search"), plus the filters of docs/product-rules.md, "API". */
export class SearchEventsDto {
  @ApiPropertyOptional({ default: false, description: 'oldest first' })
  @IsOptional()
  @IsBoolean()
  asc?: boolean;

  @ApiPropertyOptional({ default: 100, maximum: MAX_EVENT_PAGE })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_EVENT_PAGE)
  limit?: number;

  @ApiPropertyOptional({ type: [String], example: ['user.human.added'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  event_types?: string[];

  @ApiPropertyOptional({ type: [String], example: ['user'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  aggregate_types?: string[];

  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) aggregate_id?: string;
  @ApiPropertyOptional({ description: 'organization id' }) @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) resource_owner?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) editor_user_id?: string;

  @ApiPropertyOptional({ description: 'events created at or after this time (ISO 8601)' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiPropertyOptional({ description: 'events created before this time (ISO 8601)' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'until must be an ISO 8601 date-time' })
  until?: string;

  @ApiPropertyOptional({ description: 'cursor: only events after this sequence (before it when asc is false)', example: '42' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value))
  @Matches(/^\d{1,15}$/, { message: 'sequence must be a non-negative integer' })
  sequence?: string;

  /**
   * The feed for pull consumers (docs/product-rules.md, "Import and event search": the feed): when nothing matches after `sequence`, the answer waits
   * for a matching event to commit. It pages forward only, so it needs `asc: true`.
   */
  @ApiPropertyOptional({
    example: '30s',
    description: 'Go duration, at most 60s: when no event matches after sequence, wait this long for one to commit (needs asc: true)',
  })
  @IsOptional()
  @IsString()
  @Validate(IsEventWait)
  @Validate(WaitNeedsAsc)
  wait?: string;

  /** The console asks for names beside the ids; other clients get the event records alone (docs/product-rules.md, "Import and event search"). */
  @ApiPropertyOptional({
    default: false,
    description: "also answer `users` and `objects`: the names of the users, organizations, projects, applications and groups the page's events name",
  })
  @IsOptional()
  @IsBoolean()
  withNames?: boolean;
}

class LocalizedDto {
  @ApiProperty({ example: 'EventTypes.user.human.added' }) key: string;
  @ApiProperty({ example: 'Person added' }) localizedMessage: string;
}

class LocalizedTypeDto {
  @ApiProperty() type: string;
  @ApiProperty({ type: LocalizedDto }) localized: LocalizedDto;
}

class EventAggregateDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: LocalizedTypeDto }) type: LocalizedTypeDto;
  @ApiProperty({ description: 'organization id, or instance' }) resourceOwner: string;
}

class EventEditorDto {
  @ApiProperty({ nullable: true, type: String, description: 'null for changes made by the service itself' }) userId: string | null;
}

export class EventDto {
  @ApiProperty({ description: 'position in the log; pass back as sequence to page on' }) sequence: string;
  @ApiProperty() creationDate: string;
  @ApiProperty({ type: LocalizedTypeDto }) type: LocalizedTypeDto;
  @ApiProperty({ type: EventAggregateDto }) aggregate: EventAggregateDto;
  @ApiProperty({ type: EventEditorDto }) editor: EventEditorDto;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload: JsonObject;
}

/** A user an event of the page names (docs/product-rules.md, "Import and event search": names beside ids). */
export class EventUserDto {
  @ApiProperty() userId: string;
  @ApiProperty({ description: '`<userName>@<organization primary domain>`', example: 'ada@acme.localhost' }) loginName: string;
  @ApiPropertyOptional({ example: 'Ada Lovelace' }) displayName?: string;
}

/** An organization, project, application or group an event of the page names (the id, its kind, its name). */
export class EventObjectDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['org', 'project', 'application', 'group'] }) kind: 'org' | 'project' | 'application' | 'group';
  @ApiProperty({ example: 'Payroll admins' }) name: string;
}

export class EventListDto {
  @ApiProperty({ type: [EventDto] }) events: EventDto[];

  /**
   * Only with `withNames: true`: the users the page's events name (editor, the user of a user event,
   * `payload.userId`), each once. A user that no longer exists is absent. Not part of the event record itself,
   * so webhook deliveries (the record alone) carry no names.
   */
  @ApiPropertyOptional({
    type: [EventUserDto],
    description:
      "only with withNames: true — the users the page's events name (`editor.userId`, the aggregate id of `user` events and `payload.userId`), each once; a removed user is absent",
  })
  users?: EventUserDto[];

  /** Only with `withNames: true`: the organizations, projects, applications and groups the page's events name. */
  @ApiPropertyOptional({
    type: [EventObjectDto],
    description:
      "only with withNames: true — the organizations, projects, applications and groups the page's events name (aggregate ids, each event's organization, and a payload's orgId, projectId, groupId, appId), each once; a removed one is absent",
  })
  objects?: EventObjectDto[];
}
