import { ApiProperty } from '@nestjs/swagger';

export class OrgRolesDto {
  @ApiProperty() orgId: string;
  @ApiProperty({ type: [String], example: ['ORG_USER_MANAGER'] }) roles: string[];
}

export class MeDto {
  @ApiProperty() userId: string;
  @ApiProperty({ description: 'the organization the caller belongs to' }) orgId: string;
  @ApiProperty({ enum: ['human', 'machine'] }) userType: 'human' | 'machine';
  @ApiProperty({ type: [String], example: ['IAM_OWNER'], description: 'roles held on the instance (implied roles not expanded)' }) instanceRoles: string[];
  @ApiProperty({ type: [OrgRolesDto], description: 'roles held per organization (implied roles not expanded)' }) orgRoles: OrgRolesDto[];
}
