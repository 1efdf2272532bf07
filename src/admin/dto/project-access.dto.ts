import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { ListSearchQueryDto } from '../../common/http/validation/list-page.dto.js';
import { ROLE_KEY } from '../../users/project-access/project-access.rules.js';

const ID_LENGTH = 64;
/** A grant names at most this many roles: a project's roles are few, and every token of the user carries them. */
const MAX_GRANT_ROLES = 200;

export class CreateProjectRoleDto {
  @ApiProperty({ pattern: ROLE_KEY.source, example: 'approver', description: 'Unique in the project, compared exactly' })
  @IsString()
  @Matches(ROLE_KEY, { message: 'key must match ^[A-Za-z0-9_.:-]{1,100}$' })
  @Bounded(100)
  key: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @Bounded(200)
  displayName?: string;

  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @Bounded(1000)
  description?: string;
}

/** What a role's PATCH may change: all but its key. */
export class UpdateProjectRoleDto extends OmitType(CreateProjectRoleDto, ['key'] as const) {}

export class ProjectRoleDto {
  @ApiProperty() key: string;
  @ApiPropertyOptional() displayName?: string;
  @ApiPropertyOptional() description?: string;
}

export class ProjectRoleListDto {
  @ApiProperty({ type: [ProjectRoleDto] }) roles: ProjectRoleDto[];
  @ApiProperty() total: number;
}

export class CreateProjectGrantDto {
  @ApiPropertyOptional({ description: 'The user granted; exactly one of userId and groupId' })
  @IsOptional()
  @IsString()
  @Bounded(ID_LENGTH)
  userId?: string;

  @ApiPropertyOptional({ description: 'The group whose every member is granted; exactly one of userId and groupId' })
  @IsOptional()
  @IsString()
  @Bounded(ID_LENGTH)
  groupId?: string;

  @ApiProperty({ type: [String], description: "Keys of the project's roles; [] still admits" })
  @IsArray()
  @ArrayMaxSize(MAX_GRANT_ROLES)
  @IsString({ each: true })
  @Bounded(100, { each: true })
  roles: string[];
}

export class UpdateProjectGrantDto {
  @ApiProperty({ type: [String], description: "Keys of the project's roles, replacing the grant's; [] still admits" })
  @IsArray()
  @ArrayMaxSize(MAX_GRANT_ROLES)
  @IsString({ each: true })
  @Bounded(100, { each: true })
  roles: string[];
}

export class ListProjectGrantsQueryDto extends ListSearchQueryDto {
  @ApiPropertyOptional({ description: "Only this user's own grant" })
  @IsOptional()
  @IsString()
  @MaxLength(ID_LENGTH)
  userId?: string;

  @ApiPropertyOptional({ description: "Only this group's grant" })
  @IsOptional()
  @IsString()
  @MaxLength(ID_LENGTH)
  groupId?: string;
}

export class ProjectGrantCreatedDto {
  @ApiProperty() grantId: string;
}

export class ProjectGrantDto {
  @ApiProperty() grantId: string;
  @ApiPropertyOptional() userId?: string;
  @ApiPropertyOptional() groupId?: string;
  @ApiProperty({ type: [String] }) roles: string[];
}

export class ProjectGrantListDto {
  @ApiProperty({ type: [ProjectGrantDto] }) grants: ProjectGrantDto[];
  @ApiProperty() total: number;
}

export class EffectiveGrantDto {
  @ApiProperty() grantId: string;
  @ApiProperty() projectId: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ enum: ['user', 'group'] }) via: 'user' | 'group';
  @ApiPropertyOptional({ description: 'The group the grant reaches the user through (via "group")' }) groupId?: string;
}

export class EffectiveGrantListDto {
  @ApiProperty({ type: [EffectiveGrantDto] }) grants: EffectiveGrantDto[];
  @ApiProperty() total: number;
}
