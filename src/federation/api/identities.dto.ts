import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';

/** `POST …/users/{userId}/identities` (docs/federation.md). */
export class LinkIdentityDto {
  @ApiProperty() @IsString() @Bounded(64) idpId: string;

  @ApiProperty({ description: 'the upstream subject: OIDC sub (Entra ID: oid), or the SAML NameID' })
  @IsString()
  @Bounded(255)
  // Exact on both databases: no white space at either end (MariaDB's PAD SPACE would ignore it at the end).
  @Matches(/^\S(.*\S)?$/s, { message: 'subject must be non-empty, without white space at either end' })
  subject: string;
}

export class IdentityDto {
  @ApiProperty() idpId: string;
  @ApiProperty() subject: string;
  @ApiProperty() linkedAt: string;
  @ApiProperty({ type: String, nullable: true }) lastUsedAt: string | null;
}

export class IdentityListDto {
  @ApiProperty({ type: [IdentityDto] }) identities: IdentityDto[];
  @ApiProperty() total: number;
}
