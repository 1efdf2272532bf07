import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { AUTH_METHODS, IDP_BOUNDS, IDP_TYPES, LINK_BY, MFA_MODES } from '../idp-settings.js';
import type { AuthMethod, IdpType, LinkBy, MfaMode } from '../idp-settings.js';

/** An optional list of scope tokens (RFC 6749 §3.3: printable ASCII except space, the double quote and the backslash). */
function ScopeList(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsArray(),
    ArrayMaxSize(IDP_BOUNDS.scopes),
    ArrayUnique(),
    IsString({ each: true }),
    Bounded(IDP_BOUNDS.claimName, { each: true }),
    Matches(/^[\x21\x23-\x5b\x5d-\x7e]+$/, { each: true, message: 'scopes must be scope tokens (RFC 6749 §3.3)' }),
  );
}

/** A claim (OIDC) or attribute (SAML) name: claim names, URIs and OIDs. */
const CLAIM_NAME = /^[A-Za-z0-9_:./#-]+$/;

/** OIDC: the claim whose value is an identity's subject (`sub` by default; Entra ID: `oid`). */
function SubjectClaim(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      default: 'sub',
      example: 'oid',
      description: "OIDC: the claim whose value is the subject of this IdP's identities (Entra ID: oid); fixed once identities exist (409)",
    }),
    IsOptional(),
    IsString(),
    Bounded(IDP_BOUNDS.claimName),
    Matches(CLAIM_NAME, { message: 'subjectClaim must be a claim name' }),
  );
}

/** Where the mapped values come from (docs/federation.md): a claim or attribute name per user field. */
export class ClaimMappingDto {
  @ApiPropertyOptional({ example: 'preferred_username' }) @IsOptional() @IsString() @Bounded(IDP_BOUNDS.claimName) @Matches(CLAIM_NAME) userName?: string;
  @ApiPropertyOptional({ example: 'email' }) @IsOptional() @IsString() @Bounded(IDP_BOUNDS.claimName) @Matches(CLAIM_NAME) email?: string;
  @ApiPropertyOptional({ example: 'given_name' }) @IsOptional() @IsString() @Bounded(IDP_BOUNDS.claimName) @Matches(CLAIM_NAME) givenName?: string;
  @ApiPropertyOptional({ example: 'family_name' }) @IsOptional() @IsString() @Bounded(IDP_BOUNDS.claimName) @Matches(CLAIM_NAME) familyName?: string;
  @ApiPropertyOptional({ example: 'oid', description: 'Entra ID: oid' })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.claimName)
  @Matches(CLAIM_NAME)
  externalId?: string;
}

/** How an upstream identity without a link finds its user: exactly one user whose `by` equals the claim `from`. */
export class LinkRuleDto {
  @ApiProperty({ enum: LINK_BY }) @IsIn(LINK_BY) by: LinkBy;
  @ApiProperty({ example: 'oid' }) @IsString() @Bounded(IDP_BOUNDS.claimName) @Matches(CLAIM_NAME) from: string;
}

/** Fields an IdP has whatever its protocol, as created or changed. */
class IdpCommonDto {
  @ApiPropertyOptional({
    type: [String],
    description: 'e-mail domains whose login names go to this IdP (home-realm discovery): verified domains of the organization (…/domains), one IdP per domain',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(IDP_BOUNDS.domains)
  @ArrayUnique((d: string) => (typeof d === 'string' ? d.toLowerCase() : d))
  @IsString({ each: true })
  @Bounded(IDP_BOUNDS.domain, { each: true })
  domains?: string[];

  @ApiPropertyOptional({ type: LinkRuleDto, nullable: true, description: 'automatic linking; null or absent: none' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LinkRuleDto)
  link?: LinkRuleDto | null;

  @ApiPropertyOptional({ description: 'create a user on first sign-in when none is linked or matched', default: false })
  @IsOptional()
  @IsBoolean()
  jit?: boolean;

  @ApiPropertyOptional({ enum: MFA_MODES, default: 'local', description: 'upstream: an upstream amr with mfa counts as the second factor' })
  @IsOptional()
  @IsIn(MFA_MODES)
  mfa?: MfaMode;
}

/** SAML's fields (docs/federation.md, "SAML"), as created or changed: the IdP's metadata and how its assertions are mapped. */
class SamlFieldsDto extends IdpCommonDto {
  @ApiPropertyOptional({ description: 'SAML: the IdP metadata XML (one of metadataXml and metadataUrl); DTDs are refused' })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.metadataXml)
  metadataXml?: string;

  @ApiPropertyOptional({ description: 'SAML: where the IdP publishes its metadata (https; read once, under the outbound address rules)' })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.url)
  metadataUrl?: string;

  @ApiPropertyOptional({ default: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', description: 'SAML: the NameID format asked for' })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.nameIdFormat)
  @Matches(/^urn:oasis:names:tc:SAML:[12]\.[01]:nameid-format:[A-Za-z]+$/, { message: 'nameIdFormat must be a SAML NameID format URN (SAML Core §8.3)' })
  nameIdFormat?: string;

  @ApiPropertyOptional({ type: ClaimMappingDto, description: 'SAML: the attribute each user field is read from' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ClaimMappingDto)
  attributes?: ClaimMappingDto;

  @ApiPropertyOptional({ default: true, description: 'SAML: sign AuthnRequests with this SP key' }) @IsOptional() @IsBoolean() signAuthnRequests?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'SAML: accept IdP-initiated responses (no InResponseTo, every other check); true needs idpInitiatedLanding',
  })
  @IsOptional()
  @IsBoolean()
  allowIdpInitiated?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '/ui/account',
    description:
      "SAML: where an IdP-initiated sign-in lands: a path of this instance (one leading '/') or a URL whose origin is that of a redirect URI of an OIDC application of the organization",
  })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.landing)
  idpInitiatedLanding?: string | null;
}

/** `POST …/idps` (docs/federation.md). */
export class CreateIdpDto extends SamlFieldsDto {
  @ApiProperty({ enum: IDP_TYPES }) @IsIn(IDP_TYPES) type: IdpType;
  @ApiProperty({ example: 'Contoso Entra ID' }) @IsString() @IsNotBlank() @Bounded(IDP_BOUNDS.name) name: string;

  @ApiPropertyOptional({
    example: 'https://login.microsoftonline.com/<tenant>/v2.0',
    description: 'OIDC: the issuer; discovery reads <issuer>/.well-known/openid-configuration',
  })
  @IsOptional()
  @IsString()
  @Bounded(IDP_BOUNDS.url)
  issuer?: string;

  @ApiPropertyOptional({ description: 'OIDC' }) @IsOptional() @IsString() @IsNotBlank() @Bounded(IDP_BOUNDS.clientId) clientId?: string;
  @ApiPropertyOptional({ description: 'OIDC, for client_secret_basic and client_secret_post; stored encrypted, never returned' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(IDP_BOUNDS.clientSecret)
  clientSecret?: string;

  @ApiPropertyOptional({ enum: AUTH_METHODS, default: 'client_secret_basic' }) @IsOptional() @IsIn(AUTH_METHODS) authMethod?: AuthMethod;

  @ApiPropertyOptional({ type: [String], default: ['openid', 'profile', 'email'], description: 'OIDC; openid is always asked for' })
  @ScopeList()
  scopes?: string[];

  @SubjectClaim()
  subjectClaim?: string;

  @ApiPropertyOptional({ default: false, description: 'OIDC: redeem its ID-JAGs (Identity Assertion JWT Authorization Grants) at the token endpoint' })
  @IsOptional()
  @IsBoolean()
  acceptIdJag?: boolean;

  @ApiPropertyOptional({ type: ClaimMappingDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => ClaimMappingDto) claims?: ClaimMappingDto;
}

/** `PATCH …/idps/{idpId}`: the fields sent change; the type never does. */
export class UpdateIdpDto extends SamlFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(IDP_BOUNDS.name) name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(IDP_BOUNDS.url) issuer?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(IDP_BOUNDS.clientId) clientId?: string;
  @ApiPropertyOptional({ description: 'replaces the stored secret' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(IDP_BOUNDS.clientSecret)
  clientSecret?: string;
  @ApiPropertyOptional({ enum: AUTH_METHODS }) @IsOptional() @IsIn(AUTH_METHODS) authMethod?: AuthMethod;

  @ApiPropertyOptional({ type: [String] })
  @ScopeList()
  scopes?: string[];

  @SubjectClaim()
  subjectClaim?: string;

  @ApiPropertyOptional({ default: false, description: 'OIDC: redeem its ID-JAGs (Identity Assertion JWT Authorization Grants) at the token endpoint' })
  @IsOptional()
  @IsBoolean()
  acceptIdJag?: boolean;

  @ApiPropertyOptional({ type: ClaimMappingDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => ClaimMappingDto) claims?: ClaimMappingDto;
}

export class IdpDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: IDP_TYPES }) type: IdpType;
  @ApiProperty() name: string;
  @ApiPropertyOptional() issuer?: string;
  @ApiPropertyOptional() clientId?: string;
  @ApiPropertyOptional({ enum: AUTH_METHODS }) authMethod?: AuthMethod;
  @ApiPropertyOptional({ description: 'whether a client secret is stored (it is never returned)' }) hasClientSecret?: boolean;
  @ApiPropertyOptional({ type: [String] }) scopes?: string[];
  @ApiPropertyOptional({ description: "OIDC: the claim whose value is the subject of this IdP's identities" }) subjectClaim?: string;
  @ApiPropertyOptional({ description: 'OIDC: whether its ID-JAGs are redeemed at the token endpoint' }) acceptIdJag?: boolean;
  @ApiPropertyOptional({ type: ClaimMappingDto, description: 'OIDC' }) claims?: ClaimMappingDto;
  @ApiPropertyOptional({ description: "SAML: the IdP's entity id (from its metadata)" }) entityId?: string;
  @ApiPropertyOptional({ description: "SAML: the IdP's SSO URL, HTTP-Redirect binding (from its metadata)" }) ssoUrl?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'SAML: where the metadata was read from' }) metadataUrl?: string | null;
  @ApiPropertyOptional() nameIdFormat?: string;
  @ApiPropertyOptional({ type: ClaimMappingDto, description: 'SAML' }) attributes?: ClaimMappingDto;
  @ApiPropertyOptional() signAuthnRequests?: boolean;
  @ApiPropertyOptional({ description: 'SAML: whether IdP-initiated responses sign in' }) allowIdpInitiated?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'SAML: where an IdP-initiated sign-in lands' }) idpInitiatedLanding?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "SAML: the IdP's SingleLogoutService, HTTP-Redirect binding (from its metadata); null: no single logout",
  })
  sloUrl?: string | null;
  @ApiProperty({ type: [String] }) domains: string[];
  @ApiProperty({ type: LinkRuleDto, nullable: true }) link: LinkRuleDto | null;
  @ApiProperty() jit: boolean;
  @ApiProperty({ enum: MFA_MODES }) mfa: MfaMode;
  @ApiPropertyOptional({ description: 'OIDC: the redirect URI to register at the upstream (one per IdP)' }) callbackUrl?: string;
  @ApiPropertyOptional({ description: "SAML: this SP's entity id for this IdP" }) spEntityId?: string;
  @ApiPropertyOptional({ description: 'SAML: the assertion consumer service (HTTP-POST)' }) acsUrl?: string;
  @ApiPropertyOptional({ description: "SAML: this SP's metadata for this IdP, to hand to the upstream" }) spMetadataUrl?: string;
  @ApiProperty({
    description:
      "false while the host of the issuer (OIDC) or of the metadata URL (SAML) has not resolved: it did not when the URL was set, and no call has reached the upstream since (a SAML IdP's metadata is then read at its first sign-in or test sign-in)",
  })
  reached: boolean;
  @ApiProperty() createdAt: string;
  @ApiProperty() changedAt: string;
}

export class IdpCreatedDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ description: 'OIDC: the redirect URI to register at the upstream' }) callbackUrl?: string;
  @ApiPropertyOptional({ description: "SAML: this SP's entity id for this IdP" }) spEntityId?: string;
  @ApiPropertyOptional({ description: 'SAML: the assertion consumer service (HTTP-POST)' }) acsUrl?: string;
  @ApiPropertyOptional({ description: "SAML: this SP's metadata for this IdP" }) spMetadataUrl?: string;
}

export class IdpListDto {
  @ApiProperty({ type: [IdpDto] }) idps: IdpDto[];
  @ApiProperty() total: number;
}

export class IdpTestDto {
  @ApiProperty({ description: "the upstream's sign-in with this test's round trip; open it in a browser" }) url: string;
  @ApiProperty() expiresAt: string;
}
