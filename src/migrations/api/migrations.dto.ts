import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';

/** The sources this version reads (docs/migrating.md). */
export const SOURCES = ['keycloak', 'auth0', 'zitadel'] as const;
export type MigrationSource = (typeof SOURCES)[number];

export class MigrationOptionsDto {
  @ApiPropertyOptional({ default: false, description: 'compute the report and write nothing but the migration events' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({ default: true, description: "keep the source's user ids, so every application sees the same `sub`" })
  @IsOptional()
  @IsBoolean()
  keepSubjects?: boolean;

  @ApiPropertyOptional({
    enum: ['keep', 'rotate'],
    default: 'keep',
    description: "`rotate`: clients get new secrets instead of the source's, returned once in this answer's `secrets`",
  })
  @IsOptional()
  @IsIn(['keep', 'rotate'])
  secrets?: 'keep' | 'rotate';

  @ApiPropertyOptional({ default: false, description: 'leave the users out (groups then keep only users moved in earlier)' })
  @IsOptional()
  @IsBoolean()
  skipUsers?: boolean;
}

/**
 * `POST /admin/v1/migrations` (docs/migrating.md). The `document` is not walked by the validation pipe (a realm of
 * 100,000 users would be deep-copied for nothing): its source checks it whole and names the path of a fault.
 */
export class MigrationRequestDto {
  @ApiProperty({ enum: SOURCES })
  @IsIn(SOURCES)
  source: MigrationSource;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the export, exactly as the source wrote it (Keycloak: the realm representation)' })
  @IsOptional()
  document: unknown;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: "Auth0 only: the lines of the password-hash export Auth0's support provides (`_id`, `email`, `passwordHash`)",
  })
  @IsOptional()
  passwordHashes?: unknown;

  @ApiPropertyOptional({ description: 'an existing organization to migrate into; by default a new one, named after the source' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._@:-]{0,63}$/, { message: 'orgId must be 1 to 64 letters, digits or ._@:- characters' })
  orgId?: string;

  @ApiPropertyOptional({ type: MigrationOptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MigrationOptionsDto)
  options?: MigrationOptionsDto;
}

export class MigrationCountDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}

export class MigrationCountsDto {
  @ApiPropertyOptional({ type: MigrationCountDto }) user?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto }) group?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: 'OIDC clients: a project with its application each' }) client?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: "the clients' roles" }) role?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: 'grants of client roles to users' }) grant?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: 'machine users (ZITADEL)' }) machine?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: 'projects (ZITADEL)' }) project?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: "projects' OIDC and API applications (ZITADEL)" }) app?: MigrationCountDto;
  @ApiPropertyOptional({ type: MigrationCountDto, description: "members' organization roles (ZITADEL)" }) member?: MigrationCountDto;
}

export class MigrationFailureDto {
  @ApiProperty() kind: string;
  @ApiProperty() sourceId: string;
  @ApiProperty() message: string;
}

export class MigrationUnmappedDto {
  @ApiProperty({ description: 'JSON path into the document' }) path: string;
  @ApiProperty() reason: string;
}

export class MigrationOrganizationDto {
  @ApiProperty({ description: 'empty in a dry run that would create the organization' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() created: boolean;
}

export class MigrationIssuedSecretDto {
  @ApiProperty() clientId: string;
  @ApiPropertyOptional({ description: 'absent for a public client' }) clientSecret?: string;
}

export class MigrationReportDto {
  @ApiProperty() migrationId: string;
  @ApiProperty() source: string;
  @ApiProperty() dryRun: boolean;
  @ApiProperty() createdAt: string;
  @ApiProperty({ type: MigrationOrganizationDto }) organization: MigrationOrganizationDto;
  @ApiProperty({ type: MigrationCountsDto, description: 'per kind of object; a kind the document has none of is left out' })
  counts: MigrationCountsDto;
  @ApiProperty({ type: [MigrationFailureDto] }) failures: MigrationFailureDto[];
  @ApiProperty({ type: [MigrationUnmappedDto] }) unmapped: MigrationUnmappedDto[];
  @ApiPropertyOptional({
    type: [MigrationIssuedSecretDto],
    description: 'the client ids and secrets made for applications whose source exports none (ZITADEL): in this answer only, never stored',
  })
  secrets?: MigrationIssuedSecretDto[];
}

export class MigrationListDto {
  @ApiProperty({ type: [MigrationReportDto] }) migrations: MigrationReportDto[];
  @ApiProperty() total: number;
}
