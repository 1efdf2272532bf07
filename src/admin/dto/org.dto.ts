import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

export class CreateOrgDto {
  @ApiProperty({ example: 'ACME Corp', maxLength: 200 })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.orgName)
  name: string;
}

export class OrgDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'acme-corp.localhost' }) primaryDomain: string;
}

export class OrgListDto {
  @ApiProperty({ type: [OrgDto] }) orgs: OrgDto[];
  @ApiProperty() total: number;
}

/** `PATCH /admin/v1/orgs/{orgId}`: the name only; the primary domain (and so every login name) stays. */
export class UpdateOrgDto {
  @ApiProperty({ example: 'ACME Corporation', maxLength: 200, required: false })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.orgName)
  name?: string;
}
