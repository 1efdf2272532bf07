import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { DIRECTORY_BOUNDS, DIRECTORY_TYPES, PASSWORD_CHECKS } from '../directory-settings.js';
import type { DirectoryType, PasswordCheck } from '../directory-settings.js';

/** An LDAP attribute description (RFC 4512 §2.5: a descriptor or an OID). */
const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

function attribute() {
  return [IsOptional(), IsString(), Bounded(DIRECTORY_BOUNDS.attribute), Matches(ATTRIBUTE, { message: 'attributes must be LDAP attribute names' })];
}
const each =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((d) => d(target, key));

/** Which directory attribute fills which user field; what is not sent keeps the type's default (docs/directories.md). */
export class AttributeMappingDto {
  @ApiPropertyOptional({ example: 'uid' }) @each(attribute()) userName?: string;
  @ApiPropertyOptional({ example: 'mail' }) @each(attribute()) email?: string;
  @ApiPropertyOptional({ example: 'givenName' }) @each(attribute()) givenName?: string;
  @ApiPropertyOptional({ example: 'sn' }) @each(attribute()) familyName?: string;
  @ApiPropertyOptional({ example: 'cn' }) @each(attribute()) displayName?: string;
  @ApiPropertyOptional({ example: 'telephoneNumber' }) @each(attribute()) phone?: string;
  @ApiPropertyOptional({ example: 'entryUUID' }) @each(attribute()) externalId?: string;
}

export class SyncScheduleDto {
  @ApiPropertyOptional({ default: 15, description: 'minutes between scheduled syncs; 0 turns them off' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_080)
  intervalMinutes?: number;
}

/** Fields a directory has, as created or changed. */
class DirectoryFieldsDto {
  @ApiPropertyOptional({ example: false }) @IsOptional() @IsBoolean() startTls?: boolean;

  @ApiPropertyOptional({ nullable: true, description: "PEM: the CA that signed the directory's certificate; pinned (replaces the system's store)" })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Bounded(DIRECTORY_BOUNDS.caCertificate)
  @Matches(/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/, { message: 'caCertificate must be a PEM certificate' })
  caCertificate?: string | null;

  @ApiPropertyOptional({ example: '(objectClass=inetOrgPerson)' })
  @IsOptional()
  @IsString()
  @Bounded(DIRECTORY_BOUNDS.filter)
  @Matches(/^\(.*\)$/s, { message: 'userFilter must be an LDAP filter in parentheses (RFC 4515)' })
  userFilter?: string;

  @ApiPropertyOptional({ nullable: true, example: 'ou=groups,dc=example,dc=org' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Bounded(DIRECTORY_BOUNDS.dn)
  groupsDn?: string | null;

  @ApiPropertyOptional({ example: '(objectClass=groupOfNames)' })
  @IsOptional()
  @IsString()
  @Bounded(DIRECTORY_BOUNDS.filter)
  @Matches(/^\(.*\)$/s, { message: 'groupFilter must be an LDAP filter in parentheses (RFC 4515)' })
  groupFilter?: string;

  @ApiPropertyOptional({ type: AttributeMappingDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AttributeMappingDto)
  attributes?: AttributeMappingDto;

  @ApiPropertyOptional({ type: SyncScheduleDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => SyncScheduleDto) sync?: SyncScheduleDto;

  @ApiPropertyOptional({ enum: PASSWORD_CHECKS, default: 'bind' }) @IsOptional() @IsIn(PASSWORD_CHECKS) passwordCheck?: PasswordCheck;

  @ApiPropertyOptional({ default: false, description: 'write password changes and resets made in Portcullis to the directory' })
  @IsOptional()
  @IsBoolean()
  writeBack?: boolean;

  @ApiPropertyOptional({ default: false, description: 'create a person who is in the directory but not yet synced at sign-in' })
  @IsOptional()
  @IsBoolean()
  jit?: boolean;
}

export class CreateDirectoryDto extends DirectoryFieldsDto {
  @ApiPropertyOptional({ enum: DIRECTORY_TYPES, default: 'ldap' }) @IsOptional() @IsIn(DIRECTORY_TYPES) type?: DirectoryType;
  @ApiProperty({ example: 'Corporate LDAP' }) @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.name) name: string;
  @ApiProperty({ example: 'ldaps://ldap.corp.example:636' }) @IsString() @Bounded(DIRECTORY_BOUNDS.url) url: string;
  @ApiProperty({ example: 'cn=portcullis,ou=services,dc=corp,dc=example' }) @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.dn) bindDn: string;
  @ApiProperty({ writeOnly: true, description: 'never returned' }) @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.password) bindPassword: string;
  @ApiProperty({ example: 'ou=people,dc=corp,dc=example' }) @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.dn) usersDn: string;
}

export class UpdateDirectoryDto extends DirectoryFieldsDto {
  @ApiPropertyOptional({ enum: DIRECTORY_TYPES, description: 'cannot change' }) @IsOptional() @IsIn(DIRECTORY_TYPES) type?: DirectoryType;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.name) name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(DIRECTORY_BOUNDS.url) url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.dn) bindDn?: string;
  @ApiPropertyOptional({ writeOnly: true, description: 'replaces the stored one; never returned' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @Bounded(DIRECTORY_BOUNDS.password)
  bindPassword?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotBlank() @Bounded(DIRECTORY_BOUNDS.dn) usersDn?: string;
}

export class StartSyncDto {
  @ApiPropertyOptional({ default: false, description: 'a full sync; without a cursor every sync is one' }) @IsOptional() @IsBoolean() full?: boolean;
}

export class DirectoryHostsDto {
  @ApiProperty({ type: [String], example: ['ldap.corp.example', '10.20.0.0/16', 'dc1.corp.example:636'] })
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Bounded(300, { each: true })
  allow: string[];
}

export class DirectoryCreatedDto {
  @ApiProperty() id: string;
}

export class SyncStartedDto {
  @ApiProperty() syncId: string;
}

/** A directory as the API shows it (never the bind password). */
export class DirectoryViewDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: DIRECTORY_TYPES }) type: DirectoryType;
  @ApiProperty() name: string;
  @ApiProperty() url: string;
  @ApiProperty() startTls: boolean;
  @ApiProperty({ nullable: true, type: String }) caCertificate: string | null;
  @ApiProperty() bindDn: string;
  @ApiProperty() usersDn: string;
  @ApiProperty() userFilter: string;
  @ApiProperty({ nullable: true, type: String }) groupsDn: string | null;
  @ApiProperty() groupFilter: string;
  @ApiProperty({ type: AttributeMappingDto }) attributes: AttributeMappingDto;
  @ApiProperty({ type: SyncScheduleDto }) sync: SyncScheduleDto;
  @ApiProperty({ enum: PASSWORD_CHECKS }) passwordCheck: PasswordCheck;
  @ApiProperty() writeBack: boolean;
  @ApiProperty() jit: boolean;
  @ApiProperty() createdAt: string;
  @ApiProperty() changedAt: string;
}

export class DirectoryListDto {
  @ApiProperty({ type: [DirectoryViewDto] }) directories: DirectoryViewDto[];
  @ApiProperty() total: number;
}

class DirectoryTestPersonDto {
  @ApiProperty() dn: string;
  @ApiProperty() externalId: string;
  @ApiProperty() userName: string;
  @ApiProperty({ nullable: true, type: String }) email: string | null;
  @ApiProperty() givenName: string;
  @ApiProperty() familyName: string;
  @ApiProperty() displayName: string;
  @ApiProperty({ nullable: true, type: String }) phone: string | null;
}

class DirectoryTestGroupDto {
  @ApiProperty() dn: string;
  @ApiProperty() name: string;
}

/** What testing a directory found (docs/directories.md, "Testing a directory"). */
export class DirectoryTestResultDto {
  @ApiProperty() connected: boolean;
  @ApiProperty() tls: boolean;
  @ApiProperty({ enum: ['openldap', 'active-directory', 'other'], nullable: true }) serverType: 'openldap' | 'active-directory' | 'other' | null;
  @ApiProperty({ type: [DirectoryTestPersonDto], description: 'the first five users, through the attribute mapping' }) users: DirectoryTestPersonDto[];
  @ApiProperty({ type: [DirectoryTestGroupDto] }) groups: DirectoryTestGroupDto[];
  @ApiProperty({ type: [String] }) problems: string[];
}

class DirectorySyncCountsDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() deactivated: number;
  @ApiProperty() reactivated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}

class DirectorySyncGroupCountsDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() removed: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}

class DirectorySyncFailureDto {
  @ApiProperty() dn: string;
  @ApiProperty() message: string;
}

/** One sync of a directory. */
export class DirectorySyncDto {
  @ApiProperty() syncId: string;
  @ApiProperty({ enum: ['full', 'incremental'] }) kind: 'full' | 'incremental';
  @ApiProperty({ enum: ['running', 'finished', 'failed'] }) state: 'running' | 'finished' | 'failed';
  @ApiProperty() startedAt: string;
  @ApiPropertyOptional() finishedAt?: string;
  @ApiProperty({ type: DirectorySyncCountsDto, description: "what the sync did to the directory's users" }) counts: DirectorySyncCountsDto;
  @ApiProperty({ type: DirectorySyncGroupCountsDto, description: "what the sync did to the directory's groups" }) groups: DirectorySyncGroupCountsDto;
  @ApiProperty({ type: [DirectorySyncFailureDto], description: 'entries that could not be synced, by DN' }) failures: DirectorySyncFailureDto[];
}

export class DirectorySyncListDto {
  @ApiProperty({ type: [DirectorySyncDto] }) syncs: DirectorySyncDto[];
  @ApiProperty() total: number;
}
