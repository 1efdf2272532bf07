import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { ListPageQueryDto } from '../../common/http/validation/list-page.dto.js';
import {
  AUTH_TYPES,
  OBJECT_STATUSES,
  ON_REMOVE,
  PROVISIONING_BOUNDS,
  PUSH_GROUPS,
  REQUEST_TIMEOUT_MS,
  TARGET_STATES,
  USER_NAME_SOURCES,
  USER_SCOPES,
} from '../provisioning-settings.js';
import type { AuthType, ObjectStatus, OnRemove, PushGroups, TargetState, UserNameSource, UserScope } from '../provisioning-settings.js';

/** How many users of each action a dry-run plan lists (the counts are whole). */
export const PLAN_ITEMS_SHOWN = 100;

/** RFC 6749 §3.3: scope tokens (printable ASCII except the double quote and the backslash) separated by spaces. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;

/** How the service authenticates to the target: a bearer token, or OAuth client credentials (RFC 6749 §4.4). Secrets are never returned. */
export class TargetAuthDto {
  @ApiProperty({ enum: AUTH_TYPES }) @IsIn(AUTH_TYPES) type: AuthType;
  @ApiPropertyOptional({ description: 'bearer: the token (write-only)' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(PROVISIONING_BOUNDS.token)
  token?: string;
  @ApiPropertyOptional({ description: 'oauth_client_credentials: the token endpoint (the outbound address rules apply)' })
  @IsOptional()
  @IsString()
  @Bounded(PROVISIONING_BOUNDS.url)
  tokenUrl?: string;
  @ApiPropertyOptional({ description: 'oauth_client_credentials' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(PROVISIONING_BOUNDS.clientId)
  clientId?: string;
  @ApiPropertyOptional({ description: 'oauth_client_credentials (write-only)' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(PROVISIONING_BOUNDS.clientSecret)
  clientSecret?: string;
  @ApiPropertyOptional({ description: 'oauth_client_credentials: the scope to ask for' })
  @IsOptional()
  @IsString()
  @Bounded(PROVISIONING_BOUNDS.scope)
  @Matches(SCOPE, { message: 'auth.scope must be space-separated scope tokens (RFC 6749 §3.3)' })
  scope?: string;
}

/** Which users the target receives: all of the organization's, or the members of the chosen groups. */
export class TargetScopeDto {
  @ApiProperty({ enum: USER_SCOPES }) @IsIn(USER_SCOPES) users: UserScope;
  @ApiPropertyOptional({ type: [String], description: 'the chosen groups (users "groups", pushGroups "scoped")' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PROVISIONING_BOUNDS.groupIds)
  @IsString({ each: true })
  @Bounded(PROVISIONING_BOUNDS.groupId, { each: true })
  groupIds?: string[];
}

/** Fields a target has, as created or changed. */
class TargetFieldsDto {
  @ApiPropertyOptional({ type: TargetScopeDto, description: 'default: all users' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TargetScopeDto)
  scope?: TargetScopeDto;
  @ApiPropertyOptional({
    enum: PUSH_GROUPS,
    default: 'none',
    description:
      'which groups are pushed: none; scoped (with scope.users "groups" the chosen groups, with "all" every group); all (every group of the organization). docs/provisioning.md, "Groups"',
  })
  @IsOptional()
  @IsIn(PUSH_GROUPS)
  pushGroups?: PushGroups;
  @ApiPropertyOptional({ enum: USER_NAME_SOURCES, default: 'userName', description: 'which name becomes the remote userName' })
  @IsOptional()
  @IsIn(USER_NAME_SOURCES)
  userName?: UserNameSource;
  @ApiPropertyOptional({ enum: ON_REMOVE, default: 'deactivate', description: 'what a user leaving the scope, or deleted, becomes remotely' })
  @IsOptional()
  @IsIn(ON_REMOVE)
  onRemove?: OnRemove;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'a project of the organization whose roles pushed users carry as `roles` (RFC 7643 §4.1.2); null for none. docs/provisioning.md, "Roles"',
  })
  @IsOptional()
  @IsString()
  @Bounded(PROVISIONING_BOUNDS.groupId)
  rolesFrom?: string | null;
  @ApiPropertyOptional({
    minimum: REQUEST_TIMEOUT_MS.min,
    maximum: REQUEST_TIMEOUT_MS.max,
    default: REQUEST_TIMEOUT_MS.default,
    description: 'how long one request to the target may take, in ms (a slow target may need more). docs/provisioning.md, "Outbound calls"',
  })
  // Sent means a number: null is refused like any other non-integer, never read as "the default".
  @ValidateIf((_dto: object, value: unknown) => value !== undefined)
  @IsInt()
  @Min(REQUEST_TIMEOUT_MS.min)
  @Max(REQUEST_TIMEOUT_MS.max)
  requestTimeoutMs?: number;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() enabled?: boolean;
}

/** `POST …/provisioning/targets` (docs/provisioning.md, "Targets"). */
export class CreateTargetDto extends TargetFieldsDto {
  @ApiProperty({ example: 'Slack' }) @IsString() @IsNotBlank() @Bounded(PROVISIONING_BOUNDS.name) name: string;
  @ApiProperty({ example: 'https://api.example.com/scim/v2', description: 'the SCIM base URL (https; the outbound address rules apply; not this instance)' })
  @IsString()
  @Bounded(PROVISIONING_BOUNDS.url)
  baseUrl: string;
  @ApiProperty({ type: TargetAuthDto }) @IsObject() @ValidateNested() @Type(() => TargetAuthDto) auth: TargetAuthDto;
}

/** `PATCH …/provisioning/targets/{id}`: the fields sent change; an auth of the same type may leave its secret out. */
export class UpdateTargetDto extends TargetFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(PROVISIONING_BOUNDS.name) name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(PROVISIONING_BOUNDS.url) baseUrl?: string;
  @ApiPropertyOptional({ type: TargetAuthDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => TargetAuthDto) auth?: TargetAuthDto;
}

export class TargetCreatedDto {
  @ApiProperty() id: string;
}

export class TargetAuthViewDto {
  @ApiProperty({ enum: AUTH_TYPES }) type: AuthType;
  @ApiPropertyOptional() tokenUrl?: string;
  @ApiPropertyOptional() clientId?: string;
  @ApiPropertyOptional() scope?: string;
}

export class TargetScopeViewDto {
  @ApiProperty({ enum: USER_SCOPES }) users: UserScope;
  @ApiProperty({ type: [String] }) groupIds: string[];
}

export class TargetDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() baseUrl: string;
  @ApiProperty({ type: TargetAuthViewDto, description: 'never the token or client secret' }) auth: TargetAuthViewDto;
  @ApiProperty({ type: TargetScopeViewDto }) scope: TargetScopeViewDto;
  @ApiProperty({ enum: PUSH_GROUPS }) pushGroups: PushGroups;
  @ApiProperty({ enum: USER_NAME_SOURCES }) userName: UserNameSource;
  @ApiProperty({ enum: ON_REMOVE }) onRemove: OnRemove;
  @ApiProperty({ type: String, nullable: true, description: 'the project whose roles pushed users carry, or null' }) rolesFrom: string | null;
  @ApiProperty({ description: 'how long one request to the target may take, in ms' }) requestTimeoutMs: number;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) changedAt: string;
}

export class TargetListDto {
  @ApiProperty({ type: [TargetDto] }) targets: TargetDto[];
  @ApiProperty() total: number;
}

export class TargetTestDto {
  @ApiProperty({ description: 'authenticated, and ServiceProviderConfig was read' }) ok: boolean;
  @ApiProperty({ description: 'ServiceProviderConfig patch.supported' }) patch: boolean;
  @ApiProperty({ description: 'ServiceProviderConfig filter.supported' }) filter: boolean;
  @ApiProperty({ description: 'ServiceProviderConfig bulk.supported' }) bulk: boolean;
  @ApiPropertyOptional({ description: 'why the test failed' }) error?: string;
}

export class ObjectCountsDto {
  @ApiProperty() provisioned: number;
  @ApiProperty() pending: number;
  @ApiProperty() failing: number;
  @ApiProperty() conflict: number;
}

export class TargetStatusDto {
  @ApiProperty({ enum: TARGET_STATES }) state: TargetState;
  @ApiProperty({ description: 'the last event position the target has taken in' }) sequence: string;
  @ApiProperty({ description: "the organization's events past it" }) lag: number;
  @ApiProperty({ type: ObjectCountsDto }) objects: ObjectCountsDto;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastSuccessAt: string | null;
  @ApiPropertyOptional() lastError?: string;
}

export class ObjectsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ enum: OBJECT_STATUSES }) @IsOptional() @IsIn(OBJECT_STATUSES) status?: ObjectStatus;
}

export class ProvisionedObjectDto {
  @ApiProperty({ enum: ['user', 'group'] }) kind: 'user' | 'group';
  @ApiProperty() localId: string;
  @ApiProperty({ type: String, nullable: true }) remoteId: string | null;
  @ApiProperty({ enum: OBJECT_STATUSES }) status: ObjectStatus;
  @ApiProperty() attempts: number;
  @ApiPropertyOptional() lastStatus?: number;
  @ApiPropertyOptional() lastError?: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) pushedAt: string | null;
}

export class ObjectListDto {
  @ApiProperty({ type: [ProvisionedObjectDto] }) objects: ProvisionedObjectDto[];
  @ApiProperty() total: number;
}

/** `POST …/targets/{id}/reconcile` (docs/provisioning.md, "Reconcile"). */
export class ReconcileDto {
  @ApiPropertyOptional({ default: false, description: 'true: answer the plan and change nothing' }) @IsOptional() @IsBoolean() dryRun?: boolean;
}

export class PlanItemDto {
  @ApiProperty({ description: 'the Portcullis user id (the remote externalId)' }) localId: string;
  @ApiProperty({ type: String, nullable: true, description: "the target's id of the user; null for a create" }) remoteId: string | null;
  @ApiProperty({ description: 'the userName it has (deactivate, delete) or gets' }) userName: string;
}

export class PlanListDto {
  @ApiProperty({ description: 'how many users' }) count: number;
  @ApiProperty({ type: [PlanItemDto], description: `the first ${PLAN_ITEMS_SHOWN} of them` }) items: PlanItemDto[];
}

export class GroupPlanItemDto {
  @ApiProperty({ description: 'the Portcullis group id (the remote externalId)' }) localId: string;
  @ApiProperty({ type: String, nullable: true, description: "the target's id of the group; null for a create" }) remoteId: string | null;
  @ApiProperty({ description: 'the displayName it has (delete) or gets' }) displayName: string;
}

export class GroupPlanListDto {
  @ApiProperty({ description: 'how many groups' }) count: number;
  @ApiProperty({ type: [GroupPlanItemDto], description: `the first ${PLAN_ITEMS_SHOWN} of them` }) items: GroupPlanItemDto[];
}

export class GroupPlanDto {
  @ApiProperty({ type: GroupPlanListDto, description: 'pushed to the target, not there by externalId' }) create: GroupPlanListDto;
  @ApiProperty({ type: GroupPlanListDto, description: 'at the target by externalId, with another displayName or other members' })
  update: GroupPlanListDto;
  @ApiProperty({ type: GroupPlanListDto, description: 'ours at the target, gone or no longer pushed to it' }) delete: GroupPlanListDto;
}

export class ReconcilePlanDto {
  @ApiProperty({ type: GroupPlanDto, description: 'the groups (compared by displayName, externalId and members)' }) groups: GroupPlanDto;
  @ApiProperty({ type: PlanListDto, description: 'in scope, not at the target' }) create: PlanListDto;
  @ApiProperty({ type: PlanListDto, description: 'at the target by externalId, differing in what is pushed' }) update: PlanListDto;
  @ApiProperty({ type: PlanListDto, description: 'ours at the target, out of scope or gone (onRemove "deactivate")' }) deactivate: PlanListDto;
  @ApiProperty({ type: PlanListDto, description: 'ours at the target, out of scope or gone (onRemove "delete")' }) delete: PlanListDto;
  @ApiProperty({ type: PlanListDto, description: 'at the target only by userName, without externalId: adopted' }) adopt: PlanListDto;
}

export class ReconcileDryRunDto {
  @ApiProperty({ type: ReconcilePlanDto }) plan: ReconcilePlanDto;
}

export class ReconcileStartedDto {
  @ApiProperty({ description: 'the run, as named by its provisioning.reconcile.requested event' }) runId: string;
}
