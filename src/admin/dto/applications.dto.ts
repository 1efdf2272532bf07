import { AppTokenLifetimesDto, AppTokensFieldDto } from '../../settings/settings.dto.js';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { SUBJECT_TYPES } from '../../users/entities/application.entity.js';
import type { ApplicationEntity, SubjectType } from '../../users/entities/application.entity.js';
import type { SamlApplicationEntity } from '../../users/entities/saml-application.entity.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { SamlAppFieldsDto, SamlAttributeDto } from './saml-applications.dto.js';
import { ApiResourceFieldsDto, ResourceScopeDto } from './api-resource.dto.js';
import { AppEntryFieldsDto } from './app-entry.dto.js';
import { NAME_ID_FORMATS } from '../../users/saml-application.rules.js';
import type { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import {
  ACCESS_TOKEN_TYPES,
  AUTHORIZATION_RESPONSE_ALGS,
  GRANT_TYPES,
  GrantTypeList,
  OIDC_AUTH_METHODS,
  OauthProfileFieldsDto,
  RESPONSE_TYPES,
  RedirectUriList,
  ResponseTypeList,
} from './projects.dto.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

export class ProjectDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
}

export class ProjectListDto {
  @ApiProperty({ type: [ProjectDto] }) projects: ProjectDto[];
  @ApiProperty({ description: 'projects in all, whatever the page' }) total: number;
}

export class UpdateProjectDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.projectName)
  name?: string;
}

/**
 * One application as its create request described it, without secrets. API applications carry name, authMethod, access
 * and their resource settings (accessTokenType, resourceUri, scopes) only; SAML applications their SAML fields (docs/saml.md) and this organization's IdP endpoints.
 */
export class AppDto {
  @ApiProperty() appId: string;
  @ApiProperty() clientId: string;
  @ApiProperty() projectId: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['oidc', 'api', 'saml'] }) type: 'oidc' | 'api' | 'saml';
  @ApiProperty({ enum: OIDC_AUTH_METHODS }) authMethod: string;
  @ApiPropertyOptional({ type: AppTokenLifetimesDto, description: "the application's own token lifetimes; a field not shown is the instance's" })
  tokens?: AppTokenLifetimesDto;
  @ApiPropertyOptional({ enum: ['everyone', 'granted'], description: 'OIDC and SAML: who may enter; API: who may use its resource' }) access?:
    | 'everyone'
    | 'granted';
  @ApiPropertyOptional({ type: String, nullable: true, description: "OIDC and SAML: the link on a person's page of applications" }) homeUrl?: string | null;
  @ApiPropertyOptional({ description: 'SAML' }) entityId?: string;
  @ApiPropertyOptional({ type: [String], description: 'SAML' }) acsUrls?: string[];
  @ApiPropertyOptional({ enum: NAME_ID_FORMATS, description: 'SAML' }) nameIdFormat?: string;
  @ApiPropertyOptional({ type: [SamlAttributeDto], description: 'SAML' }) attributes?: SamlAttributeDto[];
  @ApiPropertyOptional({ description: 'SAML' }) signAssertion?: boolean;
  @ApiPropertyOptional({ description: 'SAML' }) signResponse?: boolean;
  @ApiPropertyOptional({ description: 'SAML' }) encryptAssertion?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: "SAML: the service provider's certificate, PEM" }) spCertificate?: string | null;
  @ApiPropertyOptional({ description: 'SAML' }) requireSignedRequests?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'SAML' }) sloUrl?: string | null;
  @ApiPropertyOptional({ description: 'SAML' }) allowIdpInitiated?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'SAML: the RelayState of IdP-initiated responses' }) idpInitiatedRelayState?: string | null;
  @ApiPropertyOptional({ description: "SAML: this organization's IdP entity id" }) idpEntityId?: string;
  @ApiPropertyOptional({ description: 'SAML: the SingleSignOnService URL' }) ssoUrl?: string;
  @ApiPropertyOptional({ description: 'SAML: the IdP metadata URL' }) idpMetadataUrl?: string;
  @ApiPropertyOptional({ type: [String] }) redirectUris?: string[];
  @ApiPropertyOptional({ type: [String] }) postLogoutRedirectUris?: string[];
  @ApiPropertyOptional({ enum: RESPONSE_TYPES, isArray: true }) responseTypes?: string[];
  @ApiPropertyOptional({ enum: GRANT_TYPES, isArray: true }) grantTypes?: string[];
  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES }) accessTokenType?: string;
  @ApiPropertyOptional() idTokenUserinfoAssertion?: boolean;
  @ApiPropertyOptional() devMode?: boolean;
  @ApiPropertyOptional() apiAccess?: boolean;
  @ApiPropertyOptional({ description: 'OIDC: RFC 9126 pushed authorization requests required' }) requirePushedAuthorizationRequests?: boolean;
  @ApiPropertyOptional({ description: 'OIDC: RFC 9101 signed request objects required' }) requireSignedRequestObject?: boolean;
  @ApiPropertyOptional({ description: 'OIDC: request objects only with exp' }) requestObjectRequiresExp?: boolean;
  @ApiPropertyOptional({ enum: AUTHORIZATION_RESPONSE_ALGS, nullable: true, description: 'OIDC: JARM alg' }) authorizationSignedResponseAlg?: string | null;
  @ApiPropertyOptional({ description: 'OIDC: RFC 9449 DPoP-bound access tokens required' }) dpopBoundAccessTokens?: boolean;
  @ApiPropertyOptional({ description: 'OIDC and API: may open Shared Signals streams (docs/signals.md)' }) ssfReceiver?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'OIDC Back-Channel Logout 1.0: where logout tokens are sent' }) backchannelLogoutUri?:
    | string
    | null;
  @ApiPropertyOptional({ description: 'OIDC Back-Channel Logout 1.0: logout tokens carry sid' }) backchannelLogoutSessionRequired?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: "OIDC: the application's own public keys" }) jwks?:
    | object
    | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'OIDC: where the application serves its public keys' }) jwksUri?: string | null;
  @ApiPropertyOptional({ enum: SUBJECT_TYPES, description: 'OIDC: the `sub` the application is given (OIDC Core §8)' }) subjectType?: SubjectType;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'API: the resource indicator clients ask tokens for (RFC 8707)' }) resourceUri?:
    | string
    | null;
  @ApiPropertyOptional({ type: [ResourceScopeDto], description: "API: the resource's own scopes" }) scopes?: ResourceScopeDto[];
}

export class AppListDto {
  @ApiProperty({ type: [AppDto] }) apps: AppDto[];
  @ApiProperty({ description: 'applications in all, whatever the page' }) total: number;
}

/** A changed application; `clientSecret` only when the change switched to a secret method and made one (shown once). */
export class AppChangedDto extends AppDto {
  @ApiPropertyOptional({ description: 'shown once' }) clientSecret?: string;
}

/**
 * `PATCH …/apps/{appId}`: any field of the create request, validated like it on the application as it
 * would be after the change. An API application takes name, authMethod, access, accessTokenType, resourceUri and scopes only.
 */
export class UpdateAppDto extends IntersectionType(SamlAppFieldsDto, OauthProfileFieldsDto, ApiResourceFieldsDto, AppEntryFieldsDto, AppTokensFieldDto) {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(STRING_BOUNDS.applicationName)
  name?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @RedirectUriList()
  redirectUris?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @RedirectUriList()
  postLogoutRedirectUris?: string[];

  @ApiPropertyOptional({ enum: RESPONSE_TYPES, isArray: true })
  @IsOptional()
  @ResponseTypeList()
  responseTypes?: string[];

  @ApiPropertyOptional({ enum: GRANT_TYPES, isArray: true })
  @IsOptional()
  @GrantTypeList()
  grantTypes?: string[];

  @ApiPropertyOptional({ enum: OIDC_AUTH_METHODS })
  @IsOptional()
  @IsIn(OIDC_AUTH_METHODS)
  authMethod?: (typeof OIDC_AUTH_METHODS)[number];

  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES })
  @IsOptional()
  @IsIn(ACCESS_TOKEN_TYPES)
  accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  idTokenUserinfoAssertion?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  devMode?: boolean;

  @ApiPropertyOptional({ description: 'only an IAM_OWNER may set it, or change an application that has it' })
  @IsOptional()
  @IsBoolean()
  apiAccess?: boolean;
}

export class AppSecretDto {
  @ApiProperty({ description: 'shown once; the previous secret stops working' }) clientSecret: string;
}

export class AppKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({ format: 'date-time' }) expirationDate?: string;
}

export class AppKeyListDto {
  @ApiProperty({ type: [AppKeyDto] }) keys: AppKeyDto[];
  @ApiProperty({ description: 'keys in all, whatever the page' }) total: number;
}

/** The IdP a SAML application's service provider is told about, as the API names it (src/users/saml-idp-endpoints.ts). */
export interface SamlIdpDto {
  idpEntityId: string;
  ssoUrl: string;
  idpMetadataUrl: string;
}

export function toSamlIdpDto(publicUrl: string, orgId: string): SamlIdpDto {
  const { entityId, ssoUrl, metadataUrl } = idpEndpoints(publicUrl, orgId);
  return { idpEntityId: entityId, ssoUrl, idpMetadataUrl: metadataUrl };
}

export function toAppDto(app: ApplicationEntity, saml?: { settings: SamlApplicationEntity; idp: SamlIdpDto }): AppDto {
  const base = { appId: app.id, clientId: app.clientId, projectId: app.projectId, name: app.name, type: app.kind, authMethod: app.authMethod };
  if (app.kind === 'api')
    return { ...base, access: app.access, accessTokenType: app.accessTokenType, resourceUri: app.resourceUri ?? null, scopes: app.resourceScopes ?? [] };
  const entry = { access: app.access, homeUrl: app.homeUrl };
  if (app.kind === 'saml' && saml) {
    const { appId: _appId, orgId: _orgId, ...settings } = saml.settings;
    return { ...base, ...entry, ...settings, ...saml.idp };
  }
  return {
    ...base,
    ...entry,
    redirectUris: app.redirectUris,
    postLogoutRedirectUris: app.postLogoutRedirectUris,
    responseTypes: app.responseTypes,
    grantTypes: app.grantTypes,
    accessTokenType: app.accessTokenType,
    idTokenUserinfoAssertion: Boolean(app.idTokenUserinfoAssertion),
    devMode: Boolean(app.devMode),
    apiAccess: Boolean(app.apiAccess),
    requirePushedAuthorizationRequests: Boolean(app.requirePushedAuthorizationRequests),
    requireSignedRequestObject: Boolean(app.requireSignedRequestObject),
    requestObjectRequiresExp: Boolean(app.requestObjectRequiresExp),
    authorizationSignedResponseAlg: app.authorizationSignedResponseAlg,
    dpopBoundAccessTokens: Boolean(app.dpopBoundAccessTokens),
    ssfReceiver: Boolean(app.ssfReceiver),
    backchannelLogoutUri: app.backchannelLogoutUri,
    backchannelLogoutSessionRequired: Boolean(app.backchannelLogoutSessionRequired),
    jwks: app.jwks,
    jwksUri: app.jwksUri,
    subjectType: app.subjectType,
  };
}

export function toAppKeyDto(key: PublicKeyEntity): AppKeyDto {
  return { keyId: key.id, createdAt: key.createdAt.toISOString(), ...(key.expiresAt ? { expirationDate: key.expiresAt.toISOString() } : {}) };
}
