import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import type { ApplicationEntity } from '../../users/entities/application.entity.js';
import type { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import { IsNotBlank } from './not-blank.decorator.js';
import { ACCESS_TOKEN_TYPES, GRANT_TYPES, OIDC_AUTH_METHODS, RESPONSE_TYPES } from './projects.dto.js';
import { Bounded } from './bounded.decorator.js';

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
  @Bounded('projectName')
  name?: string;
}

/** One application as its create request described it, without secrets. API applications carry name and authMethod only. */
export class AppDto {
  @ApiProperty() appId: string;
  @ApiProperty() clientId: string;
  @ApiProperty() projectId: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['oidc', 'api'] }) type: 'oidc' | 'api';
  @ApiProperty({ enum: OIDC_AUTH_METHODS }) authMethod: string;
  @ApiPropertyOptional({ type: [String] }) redirectUris?: string[];
  @ApiPropertyOptional({ type: [String] }) postLogoutRedirectUris?: string[];
  @ApiPropertyOptional({ enum: RESPONSE_TYPES, isArray: true }) responseTypes?: string[];
  @ApiPropertyOptional({ enum: GRANT_TYPES, isArray: true }) grantTypes?: string[];
  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES }) accessTokenType?: string;
  @ApiPropertyOptional() idTokenUserinfoAssertion?: boolean;
  @ApiPropertyOptional() devMode?: boolean;
  @ApiPropertyOptional() apiAccess?: boolean;
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
 * would be after the change. An API application takes name and authMethod only.
 */
export class UpdateAppDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded('applicationName')
  name?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Bounded('redirectUri', { each: true })
  redirectUris?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Bounded('redirectUri', { each: true })
  postLogoutRedirectUris?: string[];

  @ApiPropertyOptional({ enum: RESPONSE_TYPES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(RESPONSE_TYPES, { each: true, message: `each response type must be one of: ${RESPONSE_TYPES.join(', ')}` })
  responseTypes?: string[];

  @ApiPropertyOptional({ enum: GRANT_TYPES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(GRANT_TYPES, { each: true, message: `each grant type must be one of: ${GRANT_TYPES.join(', ')}` })
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

export function toAppDto(app: ApplicationEntity): AppDto {
  const base = { appId: app.id, clientId: app.clientId, projectId: app.projectId, name: app.name, type: app.kind, authMethod: app.authMethod };
  if (app.kind === 'api') return base;
  return {
    ...base,
    redirectUris: app.redirectUris,
    postLogoutRedirectUris: app.postLogoutRedirectUris,
    responseTypes: app.responseTypes,
    grantTypes: app.grantTypes,
    accessTokenType: app.accessTokenType,
    idTokenUserinfoAssertion: Boolean(app.idTokenUserinfoAssertion),
    devMode: Boolean(app.devMode),
    apiAccess: Boolean(app.apiAccess),
  };
}

export function toAppKeyDto(key: PublicKeyEntity): AppKeyDto {
  return { keyId: key.id, createdAt: key.createdAt.toISOString(), ...(key.expiresAt ? { expirationDate: key.expiresAt.toISOString() } : {}) };
}
