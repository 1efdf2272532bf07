import { IntersectionType } from '@nestjs/swagger';
import { AppEntryFieldsDto } from './app-entry.dto.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { SamlAttributeMapping } from '../../users/entities/saml-application.entity.js';
import { ATTRIBUTE_NAME_FORMATS, ATTRIBUTE_SOURCES, MAX_ACS_URLS, MAX_ATTRIBUTES, NAME_ID_FORMATS } from '../../users/saml-application.rules.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { MAX_RELAY_STATE_BYTES } from '../../common/xml/saml-xml.js';

/** The largest SP metadata document taken (a few KB are usual; several certificates and endpoints stay far below). */
const MAX_METADATA_CHARS = 100_000;

export class SamlAttributeDto implements SamlAttributeMapping {
  @ApiProperty({ maxLength: 256, example: 'email' })
  @IsString()
  @Bounded(256)
  name: string;

  @ApiProperty({ enum: ATTRIBUTE_SOURCES, description: "the user's value the attribute carries (groups: one value per group)" })
  @IsIn(ATTRIBUTE_SOURCES)
  from: (typeof ATTRIBUTE_SOURCES)[number];

  @ApiPropertyOptional({
    enum: ATTRIBUTE_NAME_FORMATS,
    description: 'the NameFormat of the attribute (SAML Core §8.2); default basic (as Keycloak), the form SAML Core §8.2.2 gives simple names',
  })
  @IsOptional()
  @IsIn(ATTRIBUTE_NAME_FORMATS)
  nameFormat?: (typeof ATTRIBUTE_NAME_FORMATS)[number];
}

/** The SAML fields of an application (docs/saml.md, "SAML applications"), optional in a change; shared by create and `PATCH`. */
export class SamlAppFieldsDto {
  @ApiPropertyOptional({ maxLength: 512, description: "the service provider's entity id (an absolute URI); from metadataXml when not given" })
  @IsOptional()
  @IsString()
  @Bounded(512)
  entityId?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'AssertionConsumerService URLs of the HTTP-POST binding; https (http only to loopback); from metadataXml when not given',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ACS_URLS)
  @IsString({ each: true })
  @Bounded(2048, { each: true })
  acsUrls?: string[];

  @ApiPropertyOptional({ enum: NAME_ID_FORMATS, description: 'default persistent (a stable id per user that is not the login name)' })
  @IsOptional()
  @IsIn(NAME_ID_FORMATS)
  nameIdFormat?: (typeof NAME_ID_FORMATS)[number];

  @ApiPropertyOptional({ type: [SamlAttributeDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ATTRIBUTES)
  @ValidateNested({ each: true })
  @Type(() => SamlAttributeDto)
  attributes?: SamlAttributeDto[];

  @ApiPropertyOptional({ description: 'sign the assertion (default true)' })
  @IsOptional()
  @IsBoolean()
  signAssertion?: boolean;

  @ApiPropertyOptional({ description: 'sign the response (default true)' })
  @IsOptional()
  @IsBoolean()
  signResponse?: boolean;

  @ApiPropertyOptional({ description: "encrypt the assertion with the service provider's certificate (default false)" })
  @IsOptional()
  @IsBoolean()
  encryptAssertion?: boolean;

  @ApiPropertyOptional({ description: "the service provider's X.509 certificate, PEM or base64 DER" })
  @IsOptional()
  @IsString()
  @Bounded(MAX_METADATA_CHARS)
  spCertificate?: string;

  @ApiPropertyOptional({ description: 'refuse AuthnRequests without a valid signature (default false; needs spCertificate)' })
  @IsOptional()
  @IsBoolean()
  requireSignedRequests?: boolean;

  @ApiPropertyOptional({ maxLength: 2048, description: "the service provider's SingleLogoutService URL" })
  @IsOptional()
  @IsString()
  @Bounded(2048)
  sloUrl?: string;

  @ApiPropertyOptional({ description: 'allow sign-in started here, without an AuthnRequest (default false)' })
  @IsOptional()
  @IsBoolean()
  allowIdpInitiated?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_RELAY_STATE_BYTES,
    description:
      'the RelayState sent with IdP-initiated responses (where the service provider lands the user): a URL with the origin of one of acsUrls, or a path starting with one "/"; at most 80 bytes; none by default, null clears it',
    example: '/dashboard',
  })
  @IsOptional()
  @IsString()
  @Bounded(MAX_RELAY_STATE_BYTES)
  idpInitiatedRelayState?: string | null;
}

/** `POST …/projects/{projectId}/apps/saml` (docs/saml.md, "SAML applications"). */
export class CreateSamlAppDto extends IntersectionType(SamlAppFieldsDto, AppEntryFieldsDto) {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.applicationName)
  name: string;

  @ApiPropertyOptional({ description: "the service provider's SAML metadata (an EntityDescriptor with an SPSSODescriptor); fills the fields not given" })
  @IsOptional()
  @IsString()
  @Bounded(MAX_METADATA_CHARS)
  metadataXml?: string;

  @ApiPropertyOptional({
    maxLength: 2048,
    description:
      "where to read the service provider's SAML metadata instead of metadataXml (once, at creation; https, a public address unless OUTBOUND_ALLOW_PRIVATE_NETWORKS)",
  })
  @IsOptional()
  @IsString()
  @Bounded(2048)
  metadataUrl?: string;
}

export class SamlAppCreatedDto {
  @ApiProperty() appId: string;
  @ApiProperty({ description: "this organization's IdP entity id, as the service provider is to be told" }) idpEntityId: string;
  @ApiProperty({ description: 'the SingleSignOnService URL (HTTP-Redirect and HTTP-POST bindings)' }) ssoUrl: string;
  @ApiProperty({ description: 'the IdP metadata, with the signing certificates' }) idpMetadataUrl: string;
}
