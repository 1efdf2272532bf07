import { AppTokensFieldDto } from '../../settings/settings.dto.js';
import { AppEntryFieldsDto } from './app-entry.dto.js';
import { applyDecorators } from '@nestjs/common';
import { IntersectionType, PickType } from '@nestjs/swagger';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, Equals, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { MAX_CLIENT_KEYS } from '../../common/crypto/client-jwks.js';
import type { ClientJwks } from '../../common/crypto/client-jwks.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import { SUBJECT_TYPES } from '../../users/entities/application.entity.js';
import { ApiResourceFieldsDto } from './api-resource.dto.js';
import type { SubjectType } from '../../users/entities/application.entity.js';

export const RESPONSE_TYPES = ['code', 'id_token', 'id_token token'] as const;
export const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:device_code',
  // RFC 7523 §2.1: an application redeems ID-JAGs with it (docs/agents.md, "Enterprise-managed authorization").
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] as const;
export const OIDC_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;
const API_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt'] as const;
export const ACCESS_TOKEN_TYPES = ['opaque', 'jwt'] as const;
/** JARM's algorithms (docs/oauth-profiles.md, "Signed authorization responses (JARM)"): those this instance signs with (SIGNING_ALG). */
export const AUTHORIZATION_RESPONSE_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;

/**
 * The validation of an OIDC application's URI and type lists, shared by its creation (here) and its update
 * (applications.dto.ts). Listed in the order the stacked decorators they replace were applied (bottom first), so a
 * refusal's messages stay as they were.
 */
export const RedirectUriList = () => applyDecorators(Bounded(STRING_BOUNDS.redirectUri, { each: true }), IsString({ each: true }), ArrayMaxSize(50), IsArray());
export const ResponseTypeList = () =>
  applyDecorators(IsIn(RESPONSE_TYPES, { each: true, message: `each response type must be one of: ${RESPONSE_TYPES.join(', ')}` }), ArrayUnique(), IsArray());
export const GrantTypeList = () =>
  applyDecorators(IsIn(GRANT_TYPES, { each: true, message: `each grant type must be one of: ${GRANT_TYPES.join(', ')}` }), ArrayUnique(), IsArray());

/** The per-application settings of docs/oauth-profiles.md, in create and `PATCH` alike. */
export class OauthProfileFieldsDto {
  @ApiPropertyOptional({ default: false, description: 'authorization requests only by PAR (RFC 9126 §6)' })
  @IsOptional()
  @IsBoolean()
  requirePushedAuthorizationRequests?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: "authorization requests only as request objects signed with one of the application's keys (RFC 9101); needs private_key_jwt",
  })
  @IsOptional()
  @IsBoolean()
  requireSignedRequestObject?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'request objects only with exp: without it, a request object is refused (RFC 9101 does not require exp); needs private_key_jwt',
  })
  @IsOptional()
  @IsBoolean()
  requestObjectRequiresExp?: boolean;

  @ApiPropertyOptional({
    enum: AUTHORIZATION_RESPONSE_ALGS,
    nullable: true,
    description: "JARM (response_mode=jwt): the algorithm the authorization response is signed with; null: the instance's signing algorithm",
  })
  @IsOptional()
  @IsIn([...AUTHORIZATION_RESPONSE_ALGS, null])
  authorizationSignedResponseAlg?: (typeof AUTHORIZATION_RESPONSE_ALGS)[number] | null;

  @ApiPropertyOptional({ default: false, description: 'access tokens only DPoP-bound (RFC 9449 §5.2)' })
  @IsOptional()
  @IsBoolean()
  dpopBoundAccessTokens?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'may open Shared Signals streams (SSF 1.0) about the people it may enter, with a token of scope ssf.manage (client_credentials) or its client id and secret',
  })
  @IsOptional()
  @IsBoolean()
  ssfReceiver?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description: 'where logout tokens are sent (OIDC Back-Channel Logout 1.0); null: none',
  })
  @IsOptional()
  @IsString()
  @Bounded(STRING_BOUNDS.redirectUri)
  backchannelLogoutUri?: string | null;

  @ApiPropertyOptional({ default: false, description: 'logout tokens carry the session id (sid)' })
  @IsOptional()
  @IsBoolean()
  backchannelLogoutSessionRequired?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: `private_key_jwt and signed request objects: the application's own public keys, a JSON Web Key Set (RFC 7517 §5) of 1 to ${MAX_CLIENT_KEYS} RSA (2048 bits or more), EC (P-256, P-384) or Ed25519 keys; no private members, no symmetric keys, no repeated kid. Excludes jwksUri and keys registered through …/keys; null: none`,
  })
  @IsOptional()
  @IsObject()
  jwks?: ClientJwks | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description:
      'private_key_jwt and signed request objects: where the application serves its public keys (https; plain http to a loopback host only with OUTBOUND_ALLOW_PRIVATE_NETWORKS). Excludes jwks; null: none',
  })
  @IsOptional()
  @IsString()
  @Bounded(STRING_BOUNDS.redirectUri)
  jwksUri?: string | null;

  @ApiPropertyOptional({
    enum: SUBJECT_TYPES,
    default: 'public',
    description:
      "OIDC Core §8: `public`, the user id as `sub`; `pairwise`, a `sub` of this application's sector (the redirect URIs' one host) that no other sector can relate",
  })
  @IsOptional()
  @IsIn(SUBJECT_TYPES)
  subjectType?: SubjectType;
}

export class CreateProjectDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.projectName)
  name: string;
}

export class ProjectCreatedDto {
  @ApiProperty() id: string;
}

export class CreateOidcAppDto extends IntersectionType(OauthProfileFieldsDto, AppEntryFieldsDto, AppTokensFieldDto) {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.applicationName)
  name: string;

  @ApiProperty({ type: [String], example: ['https://app.example.com/callback'] })
  @RedirectUriList()
  redirectUris: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @RedirectUriList()
  postLogoutRedirectUris?: string[];

  @ApiProperty({ enum: RESPONSE_TYPES, isArray: true })
  @ResponseTypeList()
  responseTypes: string[];

  @ApiProperty({ enum: GRANT_TYPES, isArray: true })
  @GrantTypeList()
  grantTypes: string[];

  @ApiProperty({ enum: OIDC_AUTH_METHODS })
  @IsIn(OIDC_AUTH_METHODS)
  authMethod: (typeof OIDC_AUTH_METHODS)[number];

  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES, default: 'opaque' })
  @IsOptional()
  @IsIn(ACCESS_TOKEN_TYPES)
  accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];

  @ApiPropertyOptional({ default: false, description: 'put the profile, email, phone and address claims in the id_token too' })
  @IsOptional()
  @IsBoolean()
  idTokenUserinfoAssertion?: boolean;

  @ApiPropertyOptional({ default: false, description: 'allow http and loopback redirect URIs' })
  @IsOptional()
  @IsBoolean()
  devMode?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      "first-party application: its users' tokens may carry the Portcullis API audience, and it signs in users of every organization; only an IAM_OWNER may set it",
  })
  @IsOptional()
  @IsBoolean()
  apiAccess?: boolean;
}

/** An API application: its resource settings and who may use that resource (`access`; a link, `homeUrl`, does not apply). */
export class CreateApiAppDto extends IntersectionType(ApiResourceFieldsDto, PickType(AppEntryFieldsDto, ['access'] as const)) {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.applicationName)
  name: string;

  @ApiProperty({ enum: API_AUTH_METHODS })
  @IsIn(API_AUTH_METHODS)
  authMethod: (typeof API_AUTH_METHODS)[number];

  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES, default: 'opaque', description: 'the format of tokens issued for its resourceUri' })
  @IsOptional()
  @IsIn(ACCESS_TOKEN_TYPES)
  accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];

  @ApiPropertyOptional({
    default: false,
    description: 'a Shared Signals receiver (SSF 1.0): gets tokens of scope ssf.manage by client_credentials to manage its streams; only an ORG_OWNER sets it',
  })
  @IsOptional()
  @IsBoolean()
  ssfReceiver?: boolean;
}

export class AppCreatedDto {
  @ApiProperty() appId: string;
  @ApiProperty() clientId: string;
  @ApiPropertyOptional({ description: 'shown once; absent for none and private_key_jwt' }) clientSecret?: string;
}

class ApplicationKeyDetailsDto {
  @ApiProperty({ example: 'application' }) type: 'application';
  @ApiProperty() keyId: string;
  @ApiProperty({ description: 'PEM RSA 2048 private key; shown once' }) key: string;
  @ApiProperty() clientId: string;
}

export class ApplicationKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ type: ApplicationKeyDetailsDto }) keyDetails: ApplicationKeyDetailsDto;
}

/** Bodies that carry nothing (`{}`); unknown fields are still refused. */
export class EmptyDto {
  // Under forbidUnknownValues, class-validator refuses every instance of a class without any validation
  // metadata, `{}` included; this never-sent placeholder gives the class some, and refuses any value.
  @Equals(undefined, { message: 'property $property should not exist' })
  readonly _?: never;
}
