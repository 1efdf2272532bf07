import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

export class CreateGroupDto {
  @ApiProperty({ maxLength: 255, example: 'Engineering' })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.groupDisplayName)
  displayName: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'The id the provisioning client knows the group by' })
  @IsOptional()
  @IsString()
  @Bounded(STRING_BOUNDS.groupExternalId)
  externalId?: string;
}

export class GroupCreatedDto {
  @ApiProperty() id: string;
}

export class GrantProjectDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
}

export class GroupDto {
  @ApiProperty() id: string;
  @ApiProperty() displayName: string;
  @ApiProperty({ nullable: true, type: String }) externalId: string | null;
  @ApiProperty() memberCount: number;
  @ApiProperty({
    type: [GrantProjectDto],
    description:
      'The projects the group holds a grant of. Only an ORG_OWNER or a machine user with ORG_USER_MANAGER changes the members of such a group, and nobody their own membership (docs/application-access.md)',
  })
  grantProjects: GrantProjectDto[];
}

export class GroupListDto {
  @ApiProperty({ type: [GroupDto] }) groups: GroupDto[];
  @ApiProperty() total: number;
}

export class GroupMemberDto {
  @ApiProperty() groupId: string;
  @ApiProperty() userId: string;
}

export class GroupMemberListItemDto {
  @ApiProperty() userId: string;
  @ApiProperty() userName: string;
  @ApiPropertyOptional({ description: 'absent when the user has none' }) displayName?: string;
}

export class GroupMemberListDto {
  @ApiProperty({ type: [GroupMemberListItemDto] }) members: GroupMemberListItemDto[];
  @ApiProperty({ description: 'how many members match (every list of the API carries it)' }) total: number;
}
