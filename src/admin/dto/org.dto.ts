import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class CreateOrgDto {
  @ApiProperty({ example: 'ACME Corp', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}

export class OrgDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'acme-corp.localhost' }) primaryDomain: string;
}

export class OrgListDto {
  @ApiProperty({ type: [OrgDto] }) orgs: OrgDto[];
}
