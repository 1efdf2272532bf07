import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn } from 'class-validator';
import { INSTANCE_ROLES, ORG_ROLES, Role } from '../../common/auth/roles.js';

export class SetInstanceMemberDto {
  @ApiProperty({ enum: INSTANCE_ROLES, isArray: true, example: ['IAM_OWNER'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(INSTANCE_ROLES.length)
  @IsIn(INSTANCE_ROLES, { each: true, message: `each role must be one of ${INSTANCE_ROLES.join(', ')}` })
  roles: Role[];
}

export class SetOrgMemberDto {
  @ApiProperty({ enum: ORG_ROLES, isArray: true, example: ['ORG_OWNER'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(ORG_ROLES.length)
  @IsIn(ORG_ROLES, { each: true, message: `each role must be one of ${ORG_ROLES.join(', ')}` })
  roles: Role[];
}

export class MemberDto {
  @ApiProperty() userId: string;
  @ApiProperty({ enum: Role, isArray: true }) roles: Role[];
  @ApiPropertyOptional({ description: 'in a list: `<userName>@<primary domain of its organization>`' }) loginName?: string;
  @ApiPropertyOptional({ description: "in a list: a human's display name, a machine's name" }) displayName?: string;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) members: MemberDto[];
  @ApiProperty({ description: 'members in all, whatever the page' }) total: number;
}
