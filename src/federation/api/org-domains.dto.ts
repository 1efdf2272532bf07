import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';

/** The longest domain name (RFC 1035 §2.3.4); an internationalised one is checked again in its ASCII form. */
const MAX_DOMAIN = 253;

export class AddOrgDomainDto {
  @ApiProperty({
    example: 'acme.example',
    description: 'a domain name; lower-cased, an internationalised name stored in its ASCII (xn--) form, no trailing dot',
  })
  @IsString()
  @IsNotBlank()
  @Bounded(MAX_DOMAIN)
  domain: string;
}

export class DomainChallengeDto {
  @ApiProperty({ example: '_portcullis-challenge.acme.example', description: 'the TXT record to publish' }) dnsTxtName: string;
  @ApiProperty({ description: 'its value' }) dnsTxtValue: string;
  @ApiProperty({ example: 'https://acme.example/.well-known/portcullis-challenge/…', description: 'or the HTTPS file to serve' }) httpUrl: string;
  @ApiProperty({ description: 'its body' }) httpBody: string;
}

export class OrgDomainDto {
  @ApiProperty({ example: 'acme.example' }) domain: string;
  @ApiProperty() verified: boolean;
  @ApiProperty({ description: 'the primary domain, <slug>.<INSTANCE_DOMAIN>: verified by construction, never removed' }) primary: boolean;
  @ApiPropertyOptional({ type: DomainChallengeDto, description: 'while unverified: where its challenge goes' }) verification?: DomainChallengeDto;
}

export class OrgDomainListDto {
  @ApiProperty({ type: [OrgDomainDto] }) domains: OrgDomainDto[];
  @ApiProperty() total: number;
}

export class OrgDomainVerifiedDto {
  @ApiProperty() domain: string;
  @ApiProperty({ enum: [true] }) verified: true;
}
